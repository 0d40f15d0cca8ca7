package scratch

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
)

// verifierIterations is the PBKDF2 iteration count of the SCRAM verifiers ledgercheck stores for
// the roles it logs in as. PostgreSQL's default (4096) stretches a password so that guessing a
// human's is slow; the secrets here are 128 random bits made for one run (newSecret), which no
// stretching makes harder or easier to guess. What the count does cost is CPU on every login:
// the client derives the salted password each time (4096 rounds of HMAC-SHA-256, about 8% of
// the test suite's client CPU), and the server once per password set in plain text.
const verifierIterations = 64

// scramVerifier returns the SCRAM-SHA-256 verifier of secret in the form PostgreSQL stores
// (SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>, RFC 5802 and RFC 7677), which
// CREATE ROLE, ALTER ROLE and initdb's --pwfile accept as the password as it is: the server
// never sees the secret, and logs in against the verifier with SCRAM like any other. secret is
// ASCII without control characters (SASLprep leaves it as it is); anything else is refused.
func scramVerifier(secret string) (string, error) {
	for i := 0; i < len(secret); i++ {
		if secret[i] < 0x21 || secret[i] > 0x7e {
			return "", fmt.Errorf("a SCRAM secret must be printable ASCII (byte %d is %#x)", i, secret[i])
		}
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	salted, err := pbkdf2.Key(sha256.New, secret, salt, verifierIterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac("Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", verifierIterations, b64(salt), b64(stored[:]), b64(mac("Server Key"))), nil
}

// passwordSQL returns the SQL literals of the secrets' verifiers, in order, for CREATE ROLE and
// ALTER ROLE's PASSWORD.
func passwordSQL(secrets ...string) ([]string, error) {
	lits := make([]string, len(secrets))
	for i, secret := range secrets {
		v, err := scramVerifier(secret)
		if err != nil {
			return nil, fmt.Errorf("deriving a role's SCRAM verifier: %w", err)
		}
		lits[i] = quoteLiteral(v)
	}
	return lits, nil
}
