package federation

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// inbox answers POST to an inbox (a user's or the shared one).
func (s *Service) inbox(c echo.Context) error {
	return c.NoContent(http.StatusAccepted)
}

// signedFetcher is the remote account whose valid signature a GET bears,
// 0 when none.
func (s *Service) signedFetcher(c echo.Context) int64 { return 0 }
