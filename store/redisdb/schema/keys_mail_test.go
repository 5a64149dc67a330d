package schema

import (
	"fmt"
	"testing"

	"microblog/store"
)

func TestMailKeys(t *testing.T) {
	k := NewKeys("", false)
	for got, want := range map[string]string{
		// sha256("ann@example.com"): the address in any letter case.
		k.EmailIndex("Ann@Example.com"):      "email:71d4f55f72fa128dfb468a1a3901507c804b74316488744d769d7f4b16696476:uid",
		k.MailToken(store.MailReset, "ab12"): "mail:reset:ab12",
		k.MailQueue():                        "mail:queue",
		NewKeys("p:", true).MailQueue():      "p:mail:queue",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
	job := store.MailJob{Kind: store.MailReset, UID: 7, To: "a@b.cn", Lang: "zh", At: 12}
	v := map[string]any{}
	e := MailEntry(job)
	for i := 0; i < len(e); i += 2 {
		v[e[i].(string)] = fmt.Sprint(e[i+1])
	}
	if got := ParseMailEntry(v); got != job {
		t.Errorf("entry round trip: %+v, want %+v", got, job)
	}
}
