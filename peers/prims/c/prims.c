/*
 * make prims: the C side of kexlab's primitive comparison
 * (peers/prims/run.sh, peers/prims/prims.py), linking Debian's libssl-dev
 * (OpenSSL libcrypto) and libgmp-dev.
 *
 * Reads one command a line from stdin, "OP BATCH ARGS..." (arguments in
 * hex), runs OP BATCH times on those fixed inputs and prints one line: the
 * process CPU time per operation in nanoseconds (getrusage RUSAGE_SELF,
 * user + system, around the loop only, as kexlab's bench/meter.ProcessCPU)
 * and the SHA-256 of the last result, which the script compares with the
 * other drivers' before it times anything. "versions" prints the library
 * versions (JSON).
 *
 *   modp-openssl BATCH P X E  BN_mod_exp_mont_consttime(X, E, P), the
 *                             Montgomery context of P set up once (as
 *                             OpenSSL's DH caches it); result padded to |P|
 *   modp-gmp BATCH P X E      mpz_powm_sec(X, E, P)
 *   p256-openssl BATCH K      EC_POINT_mul(K·G) on NID_X9_62_prime256v1
 *                             (nistz256 with its precomputed generator
 *                             table where OpenSSL has it); hash of the
 *                             uncompressed encoding of the last result
 *   p256-openssl-enc BATCH K  the same, and EC_POINT_point2oct (to affine,
 *                             uncompressed) inside the loop
 *   pbkdf2-openssl BATCH ITER DKLEN PASSWORD SALT
 *                             PKCS5_PBKDF2_HMAC with EVP_sha256()
 *
 * Errors are printed as one line "error ...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gmp.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

#define MAXARGS 8

static double cpu_ns(void) {
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0) {
		perror("getrusage");
		exit(1);
	}
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* unhex decodes s into a fresh buffer; returns its length or -1. */
static long unhex(const char *s, unsigned char **out) {
	size_t n = strlen(s);
	if (n % 2)
		return -1;
	unsigned char *b = malloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1) {
			free(b);
			return -1;
		}
		b[i] = (unsigned char)v;
	}
	*out = b;
	return (long)(n / 2);
}

static void reply(double ns, const unsigned char *res, size_t len) {
	unsigned char md[32];
	unsigned int mdlen = 0;
	if (!EVP_Digest(res, len, md, &mdlen, EVP_sha256(), NULL)) {
		printf("error EVP_Digest\n");
		return;
	}
	printf("%.1f ", ns);
	for (unsigned i = 0; i < mdlen; i++)
		printf("%02x", md[i]);
	printf("\n");
}

static void modp_openssl(long batch, char **a) {
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *p = NULL, *x = NULL, *e = NULL, *r = BN_new();
	BN_MONT_CTX *mont = BN_MONT_CTX_new();
	if (!BN_hex2bn(&p, a[0]) || !BN_hex2bn(&x, a[1]) || !BN_hex2bn(&e, a[2]) ||
	    !BN_MONT_CTX_set(mont, p, ctx)) {
		printf("error bad modp arguments\n");
		goto out;
	}
	BN_set_flags(e, BN_FLG_CONSTTIME);
	int ok = 1;
	double t0 = cpu_ns();
	for (long i = 0; i < batch; i++)
		ok &= BN_mod_exp_mont_consttime(r, x, e, p, ctx, mont);
	double t1 = cpu_ns();
	if (!ok) {
		printf("error BN_mod_exp_mont_consttime\n");
		goto out;
	}
	int size = BN_num_bytes(p);
	unsigned char *buf = malloc(size);
	BN_bn2binpad(r, buf, size);
	reply((t1 - t0) / batch, buf, size);
	free(buf);
out:
	BN_free(p), BN_free(x), BN_free(e), BN_free(r);
	BN_MONT_CTX_free(mont);
	BN_CTX_free(ctx);
}

static void modp_gmp(long batch, char **a) {
	mpz_t p, x, e, r;
	mpz_inits(p, x, e, r, NULL);
	if (mpz_set_str(p, a[0], 16) || mpz_set_str(x, a[1], 16) || mpz_set_str(e, a[2], 16) ||
	    mpz_sgn(e) <= 0 || mpz_even_p(p)) {
		printf("error bad modp arguments\n");
		goto out;
	}
	double t0 = cpu_ns();
	for (long i = 0; i < batch; i++)
		mpz_powm_sec(r, x, e, p);
	double t1 = cpu_ns();
	size_t size = (mpz_sizeinbase(p, 2) + 7) / 8, n = 0;
	unsigned char *buf = calloc(size, 1);
	unsigned char *tmp = mpz_export(NULL, &n, 1, 1, 1, 0, r);
	memcpy(buf + size - n, tmp, n);
	free(tmp);
	reply((t1 - t0) / batch, buf, size);
	free(buf);
out:
	mpz_clears(p, x, e, r, NULL);
}

static void p256_openssl(long batch, char **a, int encode) {
	BN_CTX *ctx = BN_CTX_new();
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *r = EC_POINT_new(g);
	BIGNUM *k = NULL;
	unsigned char buf[65];
	if (!BN_hex2bn(&k, a[0])) {
		printf("error bad scalar\n");
		goto out;
	}
	BN_set_flags(k, BN_FLG_CONSTTIME);
	int ok = 1;
	double t0 = cpu_ns();
	for (long i = 0; i < batch; i++) {
		ok &= EC_POINT_mul(g, r, k, NULL, NULL, ctx);
		if (encode)
			ok &= EC_POINT_point2oct(g, r, POINT_CONVERSION_UNCOMPRESSED, buf, sizeof buf, ctx) == sizeof buf;
	}
	double t1 = cpu_ns();
	if (!ok || EC_POINT_point2oct(g, r, POINT_CONVERSION_UNCOMPRESSED, buf, sizeof buf, ctx) != sizeof buf) {
		printf("error EC_POINT_mul\n");
		goto out;
	}
	reply((t1 - t0) / batch, buf, sizeof buf);
out:
	BN_free(k);
	EC_POINT_free(r);
	EC_GROUP_free(g);
	BN_CTX_free(ctx);
}

static void pbkdf2_openssl(long batch, char **a) {
	int iter = atoi(a[0]), dklen = atoi(a[1]);
	unsigned char *pw = NULL, *salt = NULL;
	long pwlen = unhex(a[2], &pw), saltlen = unhex(a[3], &salt);
	if (iter <= 0 || dklen <= 0 || pwlen < 0 || saltlen < 0) {
		printf("error bad pbkdf2 arguments\n");
		goto out;
	}
	unsigned char *out = malloc(dklen);
	int ok = 1;
	double t0 = cpu_ns();
	for (long i = 0; i < batch; i++)
		ok &= PKCS5_PBKDF2_HMAC((const char *)pw, (int)pwlen, salt, (int)saltlen, iter, EVP_sha256(), dklen, out);
	double t1 = cpu_ns();
	if (ok)
		reply((t1 - t0) / batch, out, dklen);
	else
		printf("error PKCS5_PBKDF2_HMAC\n");
	free(out);
out:
	free(pw);
	free(salt);
}

int main(void) {
	char line[8192];
	while (fgets(line, sizeof line, stdin)) {
		char *f[MAXARGS + 2];
		int nf = 0;
		for (char *t = strtok(line, " \t\r\n"); t && nf < MAXARGS + 2; t = strtok(NULL, " \t\r\n"))
			f[nf++] = t;
		if (nf == 0)
			continue;
		if (strcmp(f[0], "versions") == 0) {
			printf("{\"openssl\": \"%s\", \"gmp\": \"%s\"}\n", OpenSSL_version(OPENSSL_VERSION), gmp_version);
			fflush(stdout);
			continue;
		}
		long batch = nf > 1 ? atol(f[1]) : 0;
		int na = nf - 2;
		char **a = f + 2;
		if (batch <= 0)
			printf("error bad batch\n");
		else if (strcmp(f[0], "modp-openssl") == 0 && na == 3)
			modp_openssl(batch, a);
		else if (strcmp(f[0], "modp-gmp") == 0 && na == 3)
			modp_gmp(batch, a);
		else if (strcmp(f[0], "p256-openssl") == 0 && na == 1)
			p256_openssl(batch, a, 0);
		else if (strcmp(f[0], "p256-openssl-enc") == 0 && na == 1)
			p256_openssl(batch, a, 1);
		else if (strcmp(f[0], "pbkdf2-openssl") == 0 && na == 4)
			pbkdf2_openssl(batch, a);
		else
			printf("error unknown op or arguments: %s\n", f[0]);
		fflush(stdout);
	}
	return 0;
}
