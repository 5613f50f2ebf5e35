package io.varpulis.test;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;

/**
 * An identity provider made by the test: an RSA key pair whose public key is written as a
 * PEM file (what {@code spring.security.oauth2.resourceserver.jwt.public-key-location}
 * reads), and RS256 JWTs signed with the private key by Nimbus, as an identity provider
 * would issue them.
 */
public final class TestJwts {

    private final KeyPair keys;

    private final Path publicKeyFile;

    private TestJwts(KeyPair keys, Path publicKeyFile) {
        this.keys = keys;
        this.publicKeyFile = publicKeyFile;
    }

    /**
     * @param dir where the public key PEM goes
     * @return a new key pair, its public key written to {@code dir/jwt-public.pem}
     */
    public static TestJwts create(Path dir) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            KeyPair keys = generator.generateKeyPair();
            Files.createDirectories(dir);
            Path file = dir.resolve("jwt-public.pem");
            String pem = "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(keys.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n";
            Files.writeString(file, pem, StandardCharsets.US_ASCII);
            return new TestJwts(keys, file);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @return the node argument that makes it trust this key
     */
    public String publicKeyLocationArgument() {
        return "spring.security.oauth2.resourceserver.jwt.public-key-location=file:" + publicKeyFile;
    }

    /**
     * @param subject the principal
     * @param roles the {@code roles} claim
     * @return a signed token valid for 10 minutes
     */
    public String token(String subject, String... roles) {
        return token(subject, Duration.ofMinutes(10), roles);
    }

    /**
     * @param subject the principal
     * @param validFor how long from now it is valid (negative: already expired)
     * @param roles the {@code roles} claim
     * @return a signed token
     */
    public String token(String subject, Duration validFor, String... roles) {
        return token(subject, validFor, null, roles);
    }

    /**
     * @param audience the {@code aud} claim
     * @param subject the principal
     * @param roles the {@code roles} claim
     * @return a signed token for that audience, valid for 10 minutes
     */
    public String tokenFor(String audience, String subject, String... roles) {
        return token(subject, Duration.ofMinutes(10), audience, roles);
    }

    private String token(String subject, Duration validFor, String audience, String... roles) {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject)
            .issuer("https://idp.test")
            .audience(audience)
            .issueTime(Date.from(now.minusSeconds(60)))
            .expirationTime(Date.from(now.plus(validFor)))
            .claim("roles", List.of(roles))
            .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
        try {
            jwt.sign(new RSASSASigner(keys.getPrivate()));
        }
        catch (JOSEException e) {
            throw new IllegalStateException("cannot sign the test JWT", e);
        }
        return jwt.serialize();
    }

}
