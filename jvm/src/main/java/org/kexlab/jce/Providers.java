package org.kexlab.jce;

import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The providers of the study and how they are loaded.
 *
 * <p>Four families are compared: the JDK's built-in providers (SunJCE for
 * ciphers, MACs and key generators, SunRsaSign for RSA signatures and key
 * pairs, SunEC for ECDSA, SUN for DSA), Bouncy Castle (bcprov-jdk18on),
 * Conscrypt (conscrypt-openjdk-uber, BoringSSL) and the Amazon Corretto
 * Crypto Provider (AWS-LC). The third-party providers are added at the END
 * of the provider list ({@link Security#addProvider}), so that code asking
 * for no provider still gets the JDK's: the study always names the provider
 * it measures. They are loaded by reflection: a provider whose classes or
 * native library are missing is reported with the reason and its rows say
 * "not supported"; the run goes on.
 */
public final class Providers {
    private Providers() {}

    /** The JDK family: resolved to the built-in provider of each service. */
    public static final String JDK = "JDK";
    /** Bouncy Castle's provider name. */
    public static final String BC = "BC";
    /** Conscrypt's provider name. */
    public static final String CONSCRYPT = "Conscrypt";
    /** The Amazon Corretto Crypto Provider's name. */
    public static final String ACCP = "AmazonCorrettoCryptoProvider";

    /** The families in table order. */
    public static final List<String> FAMILIES = List.of(JDK, BC, CONSCRYPT, ACCP);

    /** Built-in providers that make up the JDK family, searched in this order. */
    static final List<String> BUILT_IN = List.of("SunJCE", "SunRsaSign", "SunEC", "SUN");

    private static final Map<String, String> loadErrors = new LinkedHashMap<>();
    private static boolean installed;
    private static final java.util.Set<String> installedOne = new java.util.HashSet<>();

    /**
     * Loads and registers the third-party providers (idempotent). Failures
     * are remembered, see {@link #loadError}.
     */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        installed = true;
        add(BC, "org.bouncycastle.jce.provider.BouncyCastleProvider", null);
        add(CONSCRYPT, "org.conscrypt.Conscrypt", "newProvider");
        add(ACCP, "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider", "INSTANCE");
    }

    /**
     * Loads and registers only family (the JDK family needs nothing): a
     * JMH fork loads just the provider it measures.
     */
    public static synchronized void install(String family) {
        if (installed || !installedOne.add(family)) {
            return;
        }
        switch (family) {
            case BC -> add(BC, "org.bouncycastle.jce.provider.BouncyCastleProvider", null);
            case CONSCRYPT -> add(CONSCRYPT, "org.conscrypt.Conscrypt", "newProvider");
            case ACCP -> add(ACCP, "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider",
                    "INSTANCE");
            default -> { }
        }
    }

    private static void add(String name, String cls, String factory) {
        if (Security.getProvider(name) != null) {
            return;
        }
        try {
            Class<?> c = Class.forName(cls);
            Provider p;
            if (factory == null) {
                p = (Provider) c.getConstructor().newInstance();
            } else if (factory.equals("INSTANCE")) {
                p = (Provider) c.getField(factory).get(null);
                // ACCP loads its native library lazily and records failures.
                Object err = c.getMethod("getLoadingError").invoke(p);
                if (err != null) {
                    loadErrors.put(name, "native library not loaded: " + err);
                    return;
                }
            } else {
                p = (Provider) c.getMethod(factory).invoke(null);
            }
            if (!p.getName().equals(name)) {
                loadErrors.put(name, "unexpected provider name " + p.getName());
                return;
            }
            Security.addProvider(p);
        } catch (ClassNotFoundException e) {
            loadErrors.put(name, "provider classes not on the classpath");
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            Throwable t = e.getCause() != null ? e.getCause() : e;
            loadErrors.put(name, "failed to load: " + t);
        }
    }

    /** Why family could not be loaded, or null when it is available. */
    public static synchronized String loadError(String family) {
        if (family.equals(JDK)) {
            return null;
        }
        if (!installedOne.contains(family)) {
            install();
        }
        if (!FAMILIES.contains(family)) {
            return "unknown provider " + family;
        }
        String e = loadErrors.get(family);
        if (e == null && Security.getProvider(family) == null) {
            e = "not registered";
        }
        return e;
    }

    /**
     * Returns the provider of family that implements type/algorithm: for
     * the JDK family the first built-in provider with the service, for
     * the others the family's provider if it has the service (by name or
     * alias).
     *
     * @throws NotSupportedException when the family is not loaded or lacks
     *     the service
     */
    public static Provider resolve(String family, String type, String algorithm) throws NotSupportedException {
        String err = loadError(family);
        if (err != null) {
            throw new NotSupportedException(family + ": " + err);
        }
        List<String> names = family.equals(JDK) ? BUILT_IN : List.of(family);
        for (String n : names) {
            Provider p = Security.getProvider(n);
            if (p != null && p.getService(type, algorithm) != null) {
                return p;
            }
        }
        throw new NotSupportedException(family + " has no " + type + "." + algorithm);
    }

    /**
     * The providers of family, in the order in which a transformation is
     * looked up: the built-in ones for the JDK family, the family's own
     * provider otherwise.
     *
     * @throws NotSupportedException when the family is not loaded
     */
    public static List<Provider> candidates(String family) throws NotSupportedException {
        String err = loadError(family);
        if (err != null) {
            throw new NotSupportedException(family + ": " + err);
        }
        List<Provider> out = new ArrayList<>();
        for (String n : family.equals(JDK) ? BUILT_IN : List.of(family)) {
            Provider p = Security.getProvider(n);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    /** The family's provider names and versions, or load errors, for the record. */
    public static List<String> describe() {
        install();
        List<String> out = new ArrayList<>();
        for (String f : FAMILIES) {
            String err = loadError(f);
            if (err != null) {
                out.add(f + ": " + err);
                continue;
            }
            List<String> names = f.equals(JDK) ? BUILT_IN : List.of(f);
            List<String> parts = new ArrayList<>();
            for (String n : names) {
                Provider p = Security.getProvider(n);
                if (p != null) {
                    parts.add(p.getName() + " " + p.getVersionStr());
                }
            }
            out.add(f + ": " + String.join(", ", parts));
        }
        return out;
    }
}
