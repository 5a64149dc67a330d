package fed

import (
	"context"
	"slices"

	"microblog/store"
)

// DomainBlocks lists the blocked domains, sorted.
func (f *Fed) DomainBlocks(ctx context.Context) ([]string, error) {
	ds, err := f.rdb.SMembers(ctx, f.keys.FedDomainBlocks()).Result()
	if err != nil {
		return nil, f.core.Wrap("domain blocks", err)
	}
	slices.Sort(ds)
	return ds, nil
}

// BlockDomain blocks (on) or unblocks domain, idempotently.
func (f *Fed) BlockDomain(ctx context.Context, domain string, on bool) error {
	d := store.NormalizeDomain(domain)
	if d == "" {
		return store.Invalid(store.CodeInvalidDomain, "not a domain: want one such as example.org")
	}
	var err error
	if on {
		err = f.rdb.SAdd(ctx, f.keys.FedDomainBlocks(), d).Err()
	} else {
		err = f.rdb.SRem(ctx, f.keys.FedDomainBlocks(), d).Err()
	}
	return f.core.Wrap("block domain", err)
}

// DomainBlocked tells whether host, or a domain above it, is blocked; an
// unreadable host counts as blocked.
func (f *Fed) DomainBlocked(ctx context.Context, host string) (bool, error) {
	ds := store.DomainsOf(host)
	if len(ds) == 0 {
		return true, nil
	}
	args := make([]any, len(ds))
	for i, d := range ds {
		args[i] = d
	}
	hits, err := f.rdb.SMIsMember(ctx, f.keys.FedDomainBlocks(), args...).Result()
	if err != nil {
		return false, f.core.Wrap("domain blocked", err)
	}
	return slices.Contains(hits, true), nil
}
