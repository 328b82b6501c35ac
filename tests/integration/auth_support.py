"""Tokens and keys for the authentication tests: minted with PyJWT, keys generated with cryptography, and a JWKS
document served from a local http.server whose keys a test can change while the broker runs."""
import base64
import hashlib
import hmac
import http.server
import json
import threading
import time

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from jwt.algorithms import OKPAlgorithm, RSAAlgorithm

SECRET = "it-auth-secret-Qm3Vx8Tz1Lp6Rw4Kc9Hs2Jd7"
ISSUER = "https://issuer.test"
AUDIENCE = "queen-it"


def claims(role=None, roles=None, sub="svc-it", **extra):
    now = int(time.time())
    body = {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 600}
    if role is not None:
        body["role"] = role
    if roles is not None:
        body["roles"] = roles
    body.update(extra)
    return {k: v for k, v in body.items() if v is not None}


def hs256(role=None, secret=SECRET, headers=None, **extra):
    return jwt.encode(claims(role=role, **extra), secret, algorithm="HS256", headers=headers)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256_signed_with_any_text(key_text, body):
    """An HS256 token whose HMAC key is any text, a PEM included (PyJWT refuses to do that, rightly)."""
    signing_input = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64url(json.dumps(body).encode())
    mac = hmac.new(key_text.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def ed25519_key():
    return ed25519.Ed25519PrivateKey.generate()


def public_pem(private_key):
    return private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def signed(private_key, role="admin", kid=None, **extra):
    algorithm = "RS256" if isinstance(private_key, rsa.RSAPrivateKey) else "EdDSA"
    headers = {"kid": kid} if kid else None
    return jwt.encode(claims(role=role, **extra), private_key, algorithm=algorithm, headers=headers)


def jwk(private_key, kid):
    if isinstance(private_key, rsa.RSAPrivateKey):
        key = json.loads(RSAAlgorithm.to_jwk(private_key.public_key()))
        key["alg"] = "RS256"
    else:
        key = json.loads(OKPAlgorithm.to_jwk(private_key.public_key()))
    key.update({"kid": kid, "use": "sig"})
    return key


class JwksServer:
    """GET /jwks.json answers the current document (status 200), or `status` when a test makes it fail."""

    def __init__(self):
        self.keys = []
        self.status = 200
        self.requests = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                server.requests += 1
                body = json.dumps({"keys": server.keys}).encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/jwks.json"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
