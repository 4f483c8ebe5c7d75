#!/bin/sh
# Signet request signing with openssl and curl (POSIX sh).
#
#   examples/sign.sh [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]
#
# KEY_FILE   your private key: the Base64 PKCS#8 file you were given (private.pkcs8.b64),
#            or a PKCS#8 PEM file (-----BEGIN PRIVATE KEY-----)
# CLIENT_ID  your clientId from the registry (it goes into keyid)
# METHOD     GET, POST, ... (upper-cased before signing)
# URL        the exact URL you call: scheme, host, port, path and query, as curl will send it
# BODY_FILE  the exact bytes of the body, if the request has one
#
# Without --send it prints the headers to add, one "Name: value" per line. With --send it sends
# the request with curl and prints "HTTP <status>" and the response body; exit 0 on a 2xx.
# Needs: openssl, date (GNU or BSD), and curl for --send. CONTENT_TYPE sets the body's type
# (default application/json).
set -eu

send=0
if [ "${1:-}" = "--send" ]; then send=1; shift; fi
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
  echo "usage: $0 [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]" >&2
  exit 2
fi
key_file=$1
client_id=$2
method=$(printf '%s' "$3" | tr '[:lower:]' '[:upper:]')
url=$4
body_file=${5:-}

fail() { echo "error: $*" >&2; exit 1; }
[ -f "$key_file" ] && [ -r "$key_file" ] || fail "KEY_FILE $key_file cannot be used as the private key: no such readable file"
if grep -q -e '-----BEGIN [A-Z ]*PUBLIC KEY-----' "$key_file"; then
  fail "KEY_FILE $key_file cannot be used as the private key: it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)"
fi
if [ -n "$body_file" ] && ! [ -r "$body_file" ]; then fail "BODY_FILE $body_file cannot be read"; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. The key as PEM: headerless Base64 PKCS#8 (private.pkcs8.b64) is wrapped in PEM header and footer lines.
if grep -q -e '-----BEGIN' "$key_file"; then
  cp "$key_file" "$tmp/key.pem"
else
  {
    echo '-----BEGIN PRIVATE KEY-----'
    tr -d ' \t\r\n' < "$key_file" | fold -w 64
    echo
    echo '-----END PRIVATE KEY-----'
  } > "$tmp/key.pem"
fi
openssl pkey -in "$tmp/key.pem" -noout -text 2>/dev/null | grep -q '^modulus:' ||
  fail "KEY_FILE $key_file cannot be used as the private key: it is not a PKCS#8 RSA private key (Base64 or PEM)"

# 2. created (unix seconds) and the Date header for the same instant (IMF-fixdate, English names).
created=$(date +%s)
date_header=$(LC_ALL=C date -u -d "@$created" '+%a, %d %b %Y %H:%M:%S GMT' 2>/dev/null ||
  LC_ALL=C date -u -r "$created" '+%a, %d %b %Y %H:%M:%S GMT')

# 3. Content-Digest: SHA-256 of the exact body bytes, Base64, between colons (only with a body).
content_digest=''
components='"@method" "@target-uri"'
if [ -n "$body_file" ] && [ -s "$body_file" ]; then
  content_digest="sha-256=:$(openssl dgst -sha256 -binary "$body_file" | openssl base64 -A):"
  components="$components \"content-digest\""
fi
components="$components \"date\""
params="($components);created=$created;keyid=\"$client_id\";alg=\"rsa-v1_5-sha256\""

# 4. The signature base: one line per covered component, LF line ends, no LF after the last line.
{
  printf '"@method": %s\n' "$method"
  printf '"@target-uri": %s\n' "$url"
  if [ -n "$content_digest" ]; then printf '"content-digest": %s\n' "$content_digest"; fi
  printf '"date": %s\n' "$date_header"
  printf '"@signature-params": %s' "$params"
} > "$tmp/base"

# 5. RSASSA-PKCS1-v1_5 with SHA-256 over the base, Base64.
signature=$(openssl dgst -sha256 -sign "$tmp/key.pem" "$tmp/base" | openssl base64 -A)

if [ "$send" -eq 0 ]; then
  if [ -n "$content_digest" ]; then printf 'Content-Digest: %s\n' "$content_digest"; fi
  printf 'Date: %s\n' "$date_header"
  printf 'Signature-Input: sig=%s\n' "$params"
  printf 'Signature: sig=:%s:\n' "$signature"
  exit 0
fi

# 6. Send exactly what was signed: the same method, URL (--globoff --path-as-is) and body bytes.
set -- -sS --globoff --path-as-is -X "$method" \
  -H "Date: $date_header" \
  -H "Signature-Input: sig=$params" \
  -H "Signature: sig=:$signature:"
if [ -n "$content_digest" ]; then
  set -- "$@" -H "Content-Digest: $content_digest" -H "Content-Type: ${CONTENT_TYPE:-application/json}" --data-binary "@$body_file"
fi
status=$(curl "$@" -o "$tmp/response" -w '%{http_code}' "$url")
printf 'HTTP %s\n' "$status"
cat "$tmp/response"
echo
# A local Signet gateway (npm start) rebuilds every URL as http://127.0.0.1:<port>: a request
# signed for localhost or [::1] cannot match there. Say so, as `signet request` does.
if [ "$status" = 401 ] && grep -q '"signature_mismatch"' "$tmp/response"; then
  case "$url" in
    http://localhost[:/]* | http://\[::1\][:/]*)
      rebuilt=$(printf '%s' "$url" | sed -e 's#^http://localhost#http://127.0.0.1#' -e 's#^http://\[::1\]#http://127.0.0.1#')
      echo "note: the request was signed for $url, but a local Signet gateway rebuilds the URL with 127.0.0.1 (its SIGNET_PUBLIC_BASE_URL), so the signature cannot match: call $rebuilt" >&2
      ;;
  esac
fi
case "$status" in 2??) exit 0 ;; *) exit 1 ;; esac
