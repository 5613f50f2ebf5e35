package io.varpulis.test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A private certificate authority for TLS tests, with the JDK only (no Bouncy Castle, no
 * openssl, no keytool process): EC P-256 keys and X.509 v3 certificates encoded here in
 * DER, written as the PEM files that both nats-server and {@code varpulis.nats.tls.*}
 * read (certificate, unencrypted PKCS#8 private key). Each certificate is parsed back and
 * its signature verified before it is written. Valid from an hour ago for two days.
 */
public final class TestCertificates {

    private static final String EC_WITH_SHA256 = "1.2.840.10045.4.3.2";

    private static final String COMMON_NAME = "2.5.4.3";

    private static final String SUBJECT_KEY_ID = "2.5.29.14";

    private static final String KEY_USAGE = "2.5.29.15";

    private static final String SUBJECT_ALT_NAME = "2.5.29.17";

    private static final String BASIC_CONSTRAINTS = "2.5.29.19";

    private static final String AUTHORITY_KEY_ID = "2.5.29.35";

    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";

    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";

    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    /** keyCertSign (bit 5) and cRLSign (bit 6): one unused bit. */
    private static final byte[] CA_KEY_USAGE = { 0x01, 0x06 };

    /** digitalSignature (bit 0): seven unused bits. */
    private static final byte[] LEAF_KEY_USAGE = { 0x07, (byte) 0x80 };

    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'")
        .withZone(ZoneOffset.UTC);

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;

    private final String name;

    private final KeyPair keys;

    private final Path caCertificate;

    private TestCertificates(Path dir, String name, KeyPair keys, Path caCertificate) {
        this.dir = dir;
        this.name = name;
        this.keys = keys;
        this.caCertificate = caCertificate;
    }

    /**
     * A PEM certificate and its private key.
     *
     * @param certificate the certificate, PEM
     * @param privateKey the unencrypted PKCS#8 private key, PEM
     * ({@code BEGIN PRIVATE KEY})
     */
    public record Pem(Path certificate, Path privateKey) {
    }

    /**
     * Creates a self-signed CA and writes its certificate to {@code dir/ca.pem}.
     * @param dir where the PEM files go (created when missing)
     * @param commonName the CA's CN
     * @return the CA
     */
    public static TestCertificates createAuthority(Path dir, String commonName) {
        try {
            Files.createDirectories(dir);
            KeyPair keys = newKeyPair();
            Path caFile = dir.resolve("ca.pem");
            byte[] certificate = sign(commonName, keys, commonName, keys,
                    List.of(extension(BASIC_CONSTRAINTS, true, seq(bool(true))),
                            extension(KEY_USAGE, true, tlv(0x03, CA_KEY_USAGE)),
                            extension(SUBJECT_KEY_ID, false, octets(keyId(keys)))));
            writePem(caFile, "CERTIFICATE", certificate);
            return new TestCertificates(dir, commonName, keys, caFile);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create the test CA", e);
        }
    }

    /**
     * @return the CA certificate, PEM: the {@code ca_file} of the server and
     * {@code varpulis.nats.tls.ca-file}
     */
    public Path caCertificate() {
        return caCertificate;
    }

    /**
     * A server certificate for 127.0.0.1 and localhost.
     * @param stem the file name stem
     * @return its PEM files
     */
    public Pem issueServer(String stem) {
        byte[] altNames = seq(tlv(0x87, InetAddress.getLoopbackAddress().getAddress()),
                tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)));
        return issue(stem, "localhost", SERVER_AUTH, altNames);
    }

    /**
     * A client certificate, for servers that verify clients.
     * @param stem the file name stem, also the CN
     * @return its PEM files
     */
    public Pem issueClient(String stem) {
        return issue(stem, stem, CLIENT_AUTH, null);
    }

    private Pem issue(String stem, String commonName, String usage, byte[] altNames) {
        try {
            KeyPair leaf = newKeyPair();
            List<byte[]> extensions = new ArrayList<>(List.of(extension(BASIC_CONSTRAINTS, true, seq()),
                    extension(KEY_USAGE, true, tlv(0x03, LEAF_KEY_USAGE)),
                    extension(EXTENDED_KEY_USAGE, false, seq(oid(usage))),
                    extension(SUBJECT_KEY_ID, false, octets(keyId(leaf))),
                    extension(AUTHORITY_KEY_ID, false, seq(tlv(0x80, keyId(keys))))));
            if (altNames != null) {
                extensions.add(extension(SUBJECT_ALT_NAME, false, altNames));
            }
            Pem pem = new Pem(dir.resolve(stem + ".pem"), dir.resolve(stem + "-key.pem"));
            writePem(pem.certificate(), "CERTIFICATE", sign(commonName, leaf, name, keys, extensions));
            writePem(pem.privateKey(), "PRIVATE KEY", leaf.getPrivate().getEncoded());
            return pem;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot issue " + stem, e);
        }
    }

    private static byte[] sign(String subject, KeyPair subjectKeys, String issuer, KeyPair issuerKeys,
            List<byte[]> extensions) throws GeneralSecurityException {
        Instant now = Instant.now();
        byte[] algorithm = seq(oid(EC_WITH_SHA256));
        byte[] tbs = seq(tlv(0xa0, integer(BigInteger.TWO)), integer(new BigInteger(63, RANDOM).add(BigInteger.ONE)),
                algorithm, name(issuer),
                seq(utcTime(now.minus(Duration.ofHours(1))), utcTime(now.plus(Duration.ofDays(2)))), name(subject),
                subjectKeys.getPublic().getEncoded(), tlv(0xa3, seq(extensions.toArray(byte[][]::new))));
        Signature signature = Signature.getInstance("SHA256withECDSA");
        signature.initSign(issuerKeys.getPrivate());
        signature.update(tbs);
        byte[] certificate = seq(tbs, algorithm, bitString(signature.sign()));
        X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(certificate));
        parsed.verify(issuerKeys.getPublic());
        return certificate;
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static byte[] keyId(KeyPair keys) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-1").digest(keys.getPublic().getEncoded());
    }

    private static void writePem(Path file, String type, byte[] der) throws IOException {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n",
                StandardCharsets.US_ASCII);
    }

    private static byte[] extension(String id, boolean critical, byte[] value) {
        return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
    }

    private static byte[] name(String commonName) {
        return seq(tlv(0x31, seq(oid(COMMON_NAME), tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
    }

    private static byte[] utcTime(Instant instant) {
        return tlv(0x17, UTC_TIME.format(instant).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray());
    }

    private static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] { (byte) (value ? 0xff : 0x00) });
    }

    private static byte[] octets(byte[] value) {
        return tlv(0x04, value);
    }

    private static byte[] bitString(byte[] value) {
        byte[] content = new byte[value.length + 1];
        System.arraycopy(value, 0, content, 1, value.length);
        return tlv(0x03, content);
    }

    private static byte[] oid(String dotted) {
        String[] arcs = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
        for (int i = 2; i < arcs.length; i++) {
            long arc = Long.parseLong(arcs[i]);
            int shift = 63 - Long.numberOfLeadingZeros(arc | 1);
            for (int group = shift / 7; group > 0; group--) {
                out.write((int) (0x80 | (arc >>> (7 * group)) & 0x7f));
            }
            out.write((int) (arc & 0x7f));
        }
        return tlv(0x06, out.toByteArray());
    }

    private static byte[] seq(byte[]... parts) {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            content.writeBytes(part);
        }
        return tlv(0x30, content.toByteArray());
    }

    /** One DER tag-length-value, with the definite length form. */
    private static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 4);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        }
        else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

}
