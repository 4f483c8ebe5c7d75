#!/usr/bin/env python3
"""Signet request signing in Python, with the `cryptography` package (pip install cryptography).

    python3 examples/sign.py [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]

KEY_FILE is your private key: the Base64 PKCS#8 file you were given (private.pkcs8.b64) or a
PKCS#8 PEM file. URL is the exact URL you call (scheme, host, port, path, query). BODY_FILE holds
the exact body bytes, if any.

Without --send it prints the headers to add, one "Name: value" per line. With --send it sends
the request (urllib) and prints "HTTP <status>" and the response body; exit 0 on a 2xx.

In your own code, call sign_request() and add the headers it returns to your request.
"""
import base64
import hashlib
import sys
import time
import urllib.error
import urllib.request
from email.utils import formatdate

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def load_private_key(path):
    """Headerless Base64 PKCS#8 (private.pkcs8.b64), or a PEM file."""
    with open(path, "rb") as f:
        text = f.read()
    if b"-----BEGIN" in text:
        return serialization.load_pem_private_key(text, password=None)
    return serialization.load_der_private_key(base64.b64decode(b"".join(text.split())), password=None)


def is_public_key(path):
    try:
        with open(path, "rb") as f:
            return b"PUBLIC KEY-----" in f.read()
    except OSError:
        return False


def fail(message):
    """One line on stderr, exit code 1: a wrong key file is not a traceback."""
    print("error: " + message, file=sys.stderr)
    return 1


def sign_request(private_key, client_id, method, url, body=b"", created=None):
    """The headers that sign one request: Content-Digest (with a body), Date, Signature-Input, Signature."""
    created = int(time.time()) if created is None else created
    method = method.upper()
    headers = {}
    components = ['"@method"', '"@target-uri"']
    lines = ['"@method": ' + method, '"@target-uri": ' + url]
    if body:
        digest = "sha-256=:" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii") + ":"
        headers["Content-Digest"] = digest
        components.append('"content-digest"')
        lines.append('"content-digest": ' + digest)
    date = formatdate(created, usegmt=True)  # IMF-fixdate: 'Tue, 07 Jun 2014 20:51:35 GMT'
    headers["Date"] = date
    components.append('"date"')
    lines.append('"date": ' + date)
    params = "(%s);created=%d;keyid=\"%s\";alg=\"rsa-v1_5-sha256\"" % (" ".join(components), created, client_id)
    lines.append('"@signature-params": ' + params)
    base = "\n".join(lines).encode("utf-8")  # LF line ends, no LF after the last line
    signature = private_key.sign(base, padding.PKCS1v15(), hashes.SHA256())
    headers["Signature-Input"] = "sig=" + params
    headers["Signature"] = "sig=:" + base64.b64encode(signature).decode("ascii") + ":"
    return headers


def main(argv):
    send = len(argv) > 0 and argv[0] == "--send"
    args = argv[1:] if send else argv
    if len(args) not in (4, 5):
        print("usage: sign.py [--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]", file=sys.stderr)
        return 2
    key_file, client_id, method, url = args[:4]
    try:
        private_key = load_private_key(key_file)
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise ValueError("it is not an RSA key")
    except FileNotFoundError:
        return fail("KEY_FILE %s cannot be used as the private key: no such file" % key_file)
    except (OSError, ValueError, TypeError, UnsupportedAlgorithm):
        reason = "it holds a PUBLIC key; give your private key (private.pkcs8.b64 or private.pem)" if is_public_key(key_file) else "it is not a PKCS#8 RSA private key (Base64 or PEM)"
        return fail("KEY_FILE %s cannot be used as the private key: %s" % (key_file, reason))
    body = b""
    if len(args) == 5:
        try:
            with open(args[4], "rb") as f:
                body = f.read()
        except OSError as error:
            return fail("BODY_FILE %s cannot be read: %s" % (args[4], error.strerror))
    headers = sign_request(private_key, client_id, method, url, body)
    if not send:
        for name, value in headers.items():
            print("%s: %s" % (name, value))
        return 0
    if body:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=body or None, headers=headers, method=method.upper())
    try:
        with urllib.request.urlopen(request) as response:
            status, payload = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, payload = error.code, error.read()
    print("HTTP %d" % status)
    print(payload.decode("utf-8", "replace"))
    return 0 if 200 <= status < 300 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
