// A self-signed P-256 certificate for 127.0.0.1 and localhost, valid until 2126, made for loopback tests
// only (kubelet and Knative do not verify the certificate of an HTTPS probe target, so neither do we).

/** PEM certificate of the HTTPS test server. */
export const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUC3YO5izS90vyzuAIRoSStaq1sbQwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyOTE5NTUyOFoYDzIxMjYxMTA1
MTk1NTI4WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARmMRbsaFBrrfKCvuAhG9sGZ0QEMCwtq+1P+NHR4UuZaEVfXZb0VNDw
CSQ6nWojcfZuAEvaPQH4FQthHCy18zxWo28wbTAdBgNVHQ4EFgQUxChZo9aVQSwx
AxPSKh39xxwywT8wHwYDVR0jBBgwFoAUxChZo9aVQSwxAxPSKh39xxwywT8wDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIhAPHwuqAn0MXZsn/Mror1yBXfWHdARh3sAbwqYuwA1JSIAiBc
gsu30fLCtCOA1mhWbGOQmjc4++Wn+6ok1yyf0eN3/w==
-----END CERTIFICATE-----
`;

/** PEM private key of the HTTPS test server; it protects nothing but loopback tests. */
export const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgQv9HXJkh8roPk2+4
hi/bne+pn8cAEHiw+tFBkXtKlIKhRANCAARmMRbsaFBrrfKCvuAhG9sGZ0QEMCwt
q+1P+NHR4UuZaEVfXZb0VNDwCSQ6nWojcfZuAEvaPQH4FQthHCy18zxW
-----END PRIVATE KEY-----
`;
