// OpenSSL 3 (libssl-dev) for NetClockTLS, the only module that imports this one.
//
// Swift cannot import OpenSSL's function-like macros; the `static inline` wrappers below stand in
// for the few NetClockTLS needs, each a single call with the macro's meaning and no logic of its
// own.
#ifndef NETCLOCK_COPENSSL_H
#define NETCLOCK_COPENSSL_H

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/// `SSL_CTX_set_min_proto_version`.
static inline int netclock_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// `SSL_CTX_set_max_proto_version`.
static inline int netclock_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

/// `SSL_set_tlsext_host_name`: the server name (SNI) a client sends.
static inline int netclock_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// `BIO_set_mem_eof_return`: what reading an empty memory BIO returns (-1: "retry later").
static inline int netclock_BIO_set_mem_eof_return(BIO *bio, int value) {
    return (int)BIO_set_mem_eof_return(bio, value);
}

/// `OSSL_MAC_PARAM_CIPHER`, the name of the parameter that chooses CMAC's block cipher.
static inline const char *netclock_OSSL_MAC_PARAM_CIPHER(void) {
    return OSSL_MAC_PARAM_CIPHER;
}

#endif
