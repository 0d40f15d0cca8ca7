package scratch

import (
	"strconv"
	"testing"
)

// TestCheckDim: the one dimension check takes 1 to 16000 (pgvector's vector) and says so.
func TestCheckDim(t *testing.T) {
	for dim, ok := range map[int]bool{-1: false, 0: false, 1: true, DefaultDim: true, MaxDim: true, MaxDim + 1: false} {
		err := CheckDim(dim)
		if (err == nil) != ok {
			t.Errorf("CheckDim(%d) = %v, want ok %v", dim, err, ok)
		}
		if err != nil && err.Error() != strconv.Itoa(dim)+" is out of range: want 1 to 16000" {
			t.Errorf("CheckDim(%d) = %q", dim, err)
		}
	}
}
