/*
 * libFuzzer target: key-tools key material (port/adapters/keytools) on arbitrary
 * bytes, as a file's key_metadata and a side file carry it.
 *
 * The input up to its first NUL byte is key metadata, the rest (if any) the
 * side file's text; the key metadata is unwrapped through a local KMS that
 * holds KEYS.md's master keys kf, kc1 and kc2, twice (the second answer
 * comes from what the first kept and must be the same). Every outcome must
 * be a key of 16, 24 or 32 bytes or an error with a message: the
 * sanitizers catch the rest.
 *
 * Seeds: make_seeds.sh keytools. Build and run: make fuzz.
 */
#include "../../port/adapters/keytools/upq_keytools.c"

#include <assert.h>

static const uint8_t KF[16] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2', '3', '4', '5'};
static const uint8_t KC1[16] = {'1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2', '3', '4', '5', '0'};
static const uint8_t KC2[16] = {'1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2', '3', '4', '5', '1'};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const upq_local_kms_key keys[] = {{"kf", KF, 16}, {"kc1", KC1, 16}, {"kc2", KC2, 16}};
    upq_local_kms lk;
    upq_kms kms;
    upq_keytools *kt;
    const uint8_t *nul = memchr(data, 0, size);
    size_t md_len = nul ? (size_t)(nul - data) : size;
    uint8_t k1[UPQ_CRYPTO_MAX_KEY], k2[UPQ_CRYPTO_MAX_KEY];
    size_t l1 = 0, l2 = 0;
    upq_status s1, s2;
    const char *msg;
    memset(&lk, 0, sizeof lk);
    lk.keys = keys;
    lk.nkeys = 3;
    upq_local_kms_init(&kms, &lk);
    kt = upq_keytools_new(&kms, NULL, NULL);
    if (!kt)
        return 0;
    if (nul)
        upq_keytools_material_text(kt, (const char *)nul + 1, size - md_len - 1);
    s1 = upq_keytools_unwrap(kt, data, md_len, k1, &l1);
    if (s1 != UPQ_OK) {
        assert(upq_keytools_error(kt, &msg) == s1 && msg[0]);
    } else {
        assert(l1 == 16 || l1 == 24 || l1 == 32);
        s2 = upq_keytools_unwrap(kt, data, md_len, k2, &l2);
        assert(s2 == UPQ_OK && l2 == l1 && memcmp(k1, k2, l1) == 0);
    }
    (void)upq_keytools_is_key_material(data, md_len);
    upq_keytools_free(kt);
    return 0;
}
