package observe

import (
	"encoding/json"
	"testing"
)

// A signed-in user's JWT carries aal and amr as GoTrue issues them after a password; with a
// second factor, aal2 and totp first in amr. anon's carries neither.
func TestClaimsSayHowTheUserSignedIn(t *testing.T) {
	type claims struct {
		AAL string `json:"aal"`
		AMR []struct {
			Method string `json:"method"`
		} `json:"amr"`
	}
	read := func(p Persona) claims {
		var c claims
		if err := json.Unmarshal([]byte(p.claims()), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := read(userA); c.AAL != "aal1" || len(c.AMR) != 1 || c.AMR[0].Method != "password" {
		t.Errorf("user A: %+v, want aal1 and amr [password]", c)
	}
	factor := userA.with(controlled{Kind: secondFactor, Key: "aal"}, "aal2")
	if c := read(factor); c.AAL != "aal2" || len(c.AMR) != 2 || c.AMR[0].Method != "totp" || c.AMR[1].Method != "password" {
		t.Errorf("%s: %+v, want aal2 and amr [totp password]", factor.Name, c)
	}
	if c := read(anon); c.AAL != "" || c.AMR != nil {
		t.Errorf("anon: %+v, want no aal nor amr", c)
	}
}
