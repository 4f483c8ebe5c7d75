// Signet request signing in Go, with the standard library only (crypto/rsa, crypto/sha256, net/http).
//
//	go run examples/sign.go [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]
//
// KEY_FILE is your private key: the Base64 PKCS#8 file you were given (private.pkcs8.b64) or a
// PKCS#8 / PKCS#1 PEM file. URL is the exact URL you call (scheme, host, port, path, query).
// BODY_FILE holds the exact body bytes, if any.
//
// Without --send it prints the headers to add, one "Name: value" per line. With --send it sends
// the request (net/http) and prints "HTTP <status>" and the response body; exit 0 on a 2xx.
//
// In your own code, call SignRequest and add the headers it returns to your request. One thing
// easy to get wrong in Go: http.TimeFormat is exactly the IMF-fixdate the Date header needs;
// time.RFC1123 is not (it prints the zone of the time, e.g. "UTC", not "GMT").
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Header is one header to add, in the order they are printed.
type Header struct{ Name, Value string }

// LoadPrivateKey reads headerless Base64 PKCS#8 (private.pkcs8.b64), or a PEM file.
func LoadPrivateKey(path string) (*rsa.PrivateKey, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	var der []byte
	if block, _ := pem.Decode(text); block != nil {
		if strings.Contains(block.Type, "PUBLIC") {
			return nil, errors.New("it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)")
		}
		der = block.Bytes
	} else if der, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(text)), "")); err != nil {
		return nil, errors.New("it is neither PEM nor Base64 PKCS#8")
	}
	if key, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		if rsaKey, ok := key.(*rsa.PrivateKey); ok {
			return rsaKey, nil
		}
		return nil, errors.New("it is not an RSA key")
	}
	if key, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return key, nil
	}
	if _, err := x509.ParsePKIXPublicKey(der); err == nil {
		return nil, errors.New("it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)")
	}
	return nil, errors.New("it is not a PKCS#8 or PKCS#1 RSA private key")
}

// SignRequest returns the headers that sign one request: Content-Digest (with a body), Date,
// Signature-Input, Signature.
func SignRequest(key *rsa.PrivateKey, clientID, method, url string, body []byte, created int64) ([]Header, error) {
	var headers []Header
	components := []string{`"@method"`, `"@target-uri"`}
	lines := []string{`"@method": ` + strings.ToUpper(method), `"@target-uri": ` + url}
	if len(body) > 0 {
		sum := sha256.Sum256(body)
		digest := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
		headers = append(headers, Header{"Content-Digest", digest})
		components = append(components, `"content-digest"`)
		lines = append(lines, `"content-digest": `+digest)
	}
	date := time.Unix(created, 0).UTC().Format(http.TimeFormat) // IMF-fixdate: "Tue, 07 Jun 2014 20:51:35 GMT"
	headers = append(headers, Header{"Date", date})
	components = append(components, `"date"`)
	lines = append(lines, `"date": `+date)
	params := fmt.Sprintf(`(%s);created=%d;keyid="%s";alg="rsa-v1_5-sha256"`, strings.Join(components, " "), created, clientID)
	lines = append(lines, `"@signature-params": `+params)
	base := strings.Join(lines, "\n") // LF line ends, no LF after the last line

	hash := sha256.Sum256([]byte(base))
	signature, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, hash[:])
	if err != nil {
		return nil, err
	}
	headers = append(headers, Header{"Signature-Input", "sig=" + params}, Header{"Signature", "sig=:" + base64.StdEncoding.EncodeToString(signature) + ":"})
	return headers, nil
}

func run(argv []string) int {
	send := len(argv) > 0 && argv[0] == "--send"
	args := argv
	if send {
		args = argv[1:]
	}
	if len(args) != 4 && len(args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go run sign.go [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]")
		return 2
	}
	keyFile, clientID, method, url := args[0], args[1], strings.ToUpper(args[2]), args[3]
	key, err := LoadPrivateKey(keyFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: KEY_FILE %s cannot be used as the private key: %v\n", keyFile, err)
		return 1
	}
	var body []byte
	if len(args) == 5 {
		if body, err = os.ReadFile(args[4]); err != nil {
			fmt.Fprintf(os.Stderr, "error: BODY_FILE %s cannot be read: %v\n", args[4], err)
			return 1
		}
	}
	headers, err := SignRequest(key, clientID, method, url, body, time.Now().Unix())
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: signing failed: %v\n", err)
		return 1
	}
	if !send {
		for _, h := range headers {
			fmt.Printf("%s: %s\n", h.Name, h.Value)
		}
		return 0
	}
	var reader io.Reader
	if len(body) > 0 {
		reader = strings.NewReader(string(body))
	}
	request, err := http.NewRequest(method, url, reader)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 1
	}
	for _, h := range headers {
		request.Header.Set(h.Name, h.Value)
	}
	if len(body) > 0 {
		request.Header.Set("Content-Type", "application/json")
	}
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		return 1
	}
	defer response.Body.Close()
	payload, _ := io.ReadAll(response.Body)
	fmt.Printf("HTTP %d\n%s\n", response.StatusCode, payload)
	if response.StatusCode >= 200 && response.StatusCode < 300 {
		return 0
	}
	return 1
}

func main() {
	os.Exit(run(os.Args[1:]))
}
