package storetest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// StartTLS starts a redis-server that accepts only TLS connections, with a
// certificate of a throwaway CA for 127.0.0.1. It returns the server and the
// path of the CA's PEM file, for clients to trust.
func StartTLS(t testing.TB) (*Redis, string) {
	t.Helper()
	dir := t.TempDir()
	caCert, caKey := makeCert(t, nil, nil, true)
	srvCert, srvKey := makeCert(t, caCert, caKey, false)
	write := func(name string, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caFile := write("ca.pem", "CERTIFICATE", caCert.Raw)
	certFile := write("server.pem", "CERTIFICATE", srvCert.Raw)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := write("server.key", "EC PRIVATE KEY", keyDER)

	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	port := Port(t)
	r := &Redis{t: t, Port: port, Dir: t.TempDir(),
		tls: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12},
		args: []string{"--port", "0", "--tls-port", strconv.Itoa(port),
			"--tls-cert-file", certFile, "--tls-key-file", keyFile, "--tls-ca-cert-file", caFile,
			"--tls-auth-clients", "no"}}
	r.start()
	t.Cleanup(r.Stop)
	return r, caFile
}

// TLSURL is the rediss:// URL of a server started with StartTLS.
func (r *Redis) TLSURL() string {
	u := url.URL{Scheme: "rediss", Host: r.Addr(), Path: "/0"}
	return u.String()
}

func makeCert(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, isCA bool) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "microblog test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign
		parent, parentKey = tmpl, key
	} else {
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}
