package com.example.stellar;

/** A telecommand that no retry can make valid: parked on its first delivery. */
public class InvalidTelecommandException extends RuntimeException {

    public InvalidTelecommandException(String message) {
        super(message);
    }
}
