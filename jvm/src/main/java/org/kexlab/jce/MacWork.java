package org.kexlab.jce;

import java.security.GeneralSecurityException;
import java.security.Provider;
import javax.crypto.Mac;

/**
 * HMAC (RFC 2104) of the message under a fixed key as long as the hash
 * output. The Mac is initialised once; doFinal resets it for the next
 * message, as an application authenticating many messages does.
 */
public final class MacWork extends Work {
    private final Mac mac;

    static MacWork prepare(Case c) throws NotSupportedException {
        return first(c, "Mac " + c.transformation(), p -> new MacWork(c, p));
    }

    private MacWork(Case c, Provider p) throws GeneralSecurityException {
        super(c, p);
        mac = Mac.getInstance(c.transformation(), p);
        mac.init(Keys.secret(c.algorithm(), c.keySize())); // an alias (OID) gets the same key
        mac.doFinal(data);
    }

    @Override
    public Object run() {
        return mac.doFinal(data);
    }

    /** The MAC of msg under the case's key. */
    public byte[] mac(byte[] msg) {
        return mac.doFinal(msg);
    }
}
