package api

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// DomainBlocker keeps the operators' blocks of other servers' domains
// (federation, CONTRACT.md §16).
type DomainBlocker interface {
	DomainBlocks(ctx context.Context) ([]string, error)
	BlockDomain(ctx context.Context, domain string, on bool) error
}

// domainBlocksBody is the answer of the domain block routes.
type domainBlocksBody struct {
	Domains []string `json:"domains"`
}

// handleDomainBlocks answers GET /api/v1/admin/domain_blocks.
func handleDomainBlocks(d DomainBlocker) echo.HandlerFunc {
	return func(c echo.Context) error {
		if d == nil {
			return store.ErrFederationOff
		}
		ds, err := d.DomainBlocks(c.Request().Context())
		if err != nil {
			return err
		}
		if ds == nil {
			ds = []string{}
		}
		return c.JSON(http.StatusOK, domainBlocksBody{Domains: ds})
	}
}

// handleBlockDomain answers PUT (on) and DELETE /api/v1/admin/domain_blocks/:domain
// with the blocks as they are after.
func handleBlockDomain(d DomainBlocker, on bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		if d == nil {
			return store.ErrFederationOff
		}
		if err := d.BlockDomain(c.Request().Context(), c.Param("domain"), on); err != nil {
			return err
		}
		return handleDomainBlocks(d)(c)
	}
}
