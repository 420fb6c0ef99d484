package backend

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Output kinds a tool may declare (output: in a command or HTTP tool), besides a MIME type.
const (
	OutputAuto   = "auto"   // sniff: image and audio become media content, other binary a blob
	OutputText   = "text"   // always text (binary output is an embedded blob)
	OutputImage  = "image"  // image content, its type sniffed
	OutputAudio  = "audio"  // audio content, its type sniffed
	OutputBinary = "binary" // an embedded resource blob
)

// CheckOutput checks the value of a tool's output: field and says what is wrong ("" when
// it is fine).
func CheckOutput(v string) string {
	switch v {
	case "", OutputAuto, OutputText, OutputImage, OutputAudio, OutputBinary:
		return ""
	}
	if mt, _, err := mime.ParseMediaType(v); err == nil && strings.Contains(mt, "/") {
		return ""
	}
	return fmt.Sprintf("output %q is neither auto, text, image, audio, binary nor a MIME type such as image/png", v)
}

// SniffMediaType returns the MIME type of data, without parameters: what
// http.DetectContentType finds, and the audio formats it does not know (FLAC, Ogg, MP3
// frames without an ID3 tag, MP4 audio, WebM).
func SniffMediaType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "audio/flac"
	case bytes.HasPrefix(data, []byte("OggS")):
		return "audio/ogg"
	case len(data) >= 12 && bytes.Equal(data[4:8], []byte("ftyp")) && (bytes.HasPrefix(data[8:], []byte("M4A ")) || bytes.HasPrefix(data[8:], []byte("M4B "))):
		return "audio/mp4"
	case len(data) >= 2 && data[0] == 0xFF && data[1] < 0xFE && data[1]&0xE0 == 0xE0 && data[1]&0x06 != 0:
		return "audio/mpeg" // an MPEG audio frame header (layer bits set; FF FE is a UTF-16 BOM)
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WAVE")):
		return "audio/wav"
	}
	mt := http.DetectContentType(data)
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	return mt
}

// MediaResult returns the content of a binary or media output: image and audio as image
// and audio content, anything else as an embedded resource blob at uri. declared is the
// tool's output: field ("" or auto to sniff); mt the type the source gave ("" when none:
// it is sniffed). It returns a text for the model when the declaration cannot be met.
func MediaResult(data []byte, declared, mt, uri string) (mcp.Content, string) {
	sniffed := mt
	if sniffed == "" || sniffed == "application/octet-stream" {
		sniffed = SniffMediaType(data)
	}
	switch declared {
	case OutputImage, OutputAudio:
		if !strings.HasPrefix(sniffed, declared+"/") {
			return nil, fmt.Sprintf("the tool declares %s output, but the output is %s (%d bytes); fix the tool, or declare output: binary or a MIME type", declared, sniffed, len(data))
		}
	case OutputBinary:
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: sniffed, Blob: data}}, ""
	case "", OutputAuto, OutputText:
	default: // a MIME type
		sniffed = declared
	}
	switch {
	case strings.HasPrefix(sniffed, "image/") && declared != OutputText:
		return &mcp.ImageContent{Data: data, MIMEType: sniffed}, ""
	case strings.HasPrefix(sniffed, "audio/") && declared != OutputText:
		return &mcp.AudioContent{Data: data, MIMEType: sniffed}, ""
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: sniffed, Blob: data}}, ""
}
