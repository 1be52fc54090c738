package org.kexlab.jce;

/**
 * A provider lacks an algorithm, a transformation, a key size or a
 * parameter the study asks for: the case is reported as "not supported".
 */
public final class NotSupportedException extends Exception {
    private static final long serialVersionUID = 1L;

    public NotSupportedException(String message) {
        super(message);
    }

    public NotSupportedException(String message, Throwable cause) {
        super(message, cause);
    }
}
