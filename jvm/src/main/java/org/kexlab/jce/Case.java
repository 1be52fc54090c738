package org.kexlab.jce;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured operation: a provider family, an algorithm with its key
 * size, the transformation (cipher transformation, signature or MAC
 * algorithm, or "KeyGenerator"/"KeyPairGenerator"), the data length and
 * the operation. These are the JMH parameters of {@link PrimitiveBench}
 * and the keys by which {@code kexlab report} groups the results.
 *
 * @param provider one of {@link Providers#FAMILIES}
 * @param algorithm key algorithm: AES, DESede, RSA, DSA, EC or a MAC name
 * @param keySize key size in bits (DESede: 112 for two keys, 168 for three;
 *     EC: the field size)
 * @param transformation what getInstance is asked for
 * @param dataLength message length in bytes (0 for key generation)
 * @param op keygen, encrypt, decrypt, sign, verify or mac
 */
public record Case(String provider, String algorithm, int keySize, String transformation, int dataLength,
        String op) {

    /** Operation names. */
    public static final String KEYGEN = "keygen", ENCRYPT = "encrypt", DECRYPT = "decrypt", SIGN = "sign",
            VERIFY = "verify", MAC = "mac";

    /** The JMH parameters of this case, in a fixed order. */
    public Map<String, String> params() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("provider", provider);
        m.put("algorithm", algorithm);
        m.put("keySize", Integer.toString(keySize));
        m.put("transformation", transformation);
        m.put("dataLength", Integer.toString(dataLength));
        m.put("op", op);
        return m;
    }

    /**
     * Whether the transformation is a provider default: a cipher asked for
     * by its algorithm name alone ("AES", "DESede", "RSA"), mode and padding
     * left to the provider.
     */
    public boolean isDefaultTransformation() {
        return (op.equals(ENCRYPT) || op.equals(DECRYPT)) && !transformation.contains("/");
    }

    @Override
    public String toString() {
        return provider + " " + algorithm + "-" + keySize + " " + transformation + " " + op + " "
                + dataLength + "B";
    }
}
