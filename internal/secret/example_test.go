package secret_test

import (
	"fmt"

	"github.com/mcpbridge/mcpbridge/internal/secret"
)

func ExampleScrubber() {
	sc := secret.NewLabeledScrubber(secret.Secret{Value: "sk-live-0123456789", Label: "secret API_KEY"})

	// Whole occurrences, in any common encoding, are replaced by the label.
	fmt.Println(sc.String(`{"key":"sk-live-0123456789","basic":"c2stbGl2ZS0wMTIzNDU2Nzg5"}`))

	// An output cut to a size limit inside the secret loses what is left of it.
	out := []byte("token: sk-live-0123")
	fmt.Printf("%s|\n", sc.Cut(out, secret.CutEnd))

	// The tail of an output (its start cut off) loses the end of a secret it starts with.
	fmt.Printf("|%s\n", sc.Cut([]byte("456789 done"), secret.CutStart))

	// Binary content is scrubbed on its bytes, before it is base64-encoded.
	fmt.Printf("%q\n", sc.Bytes([]byte("\x00\x01sk-live-0123456789\xff")))
	// Output:
	// {"key":"[secret API_KEY]","basic":"[secret API_KEY]"}
	// token: |
	// | done
	// "\x00\x01[secret API_KEY]\xff"
}
