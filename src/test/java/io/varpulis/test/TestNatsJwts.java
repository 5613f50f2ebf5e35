package io.varpulis.test;

import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * A decentralised-auth (operator mode) setup made without the {@code nsc} tool: an operator, one account it signs,
 * and {@code .creds} files for users the account signs, with jnats' {@link JwtUtils} and {@link NKey}.
 * <p>{@link #serverConfig()} is the nats-server configuration that trusts the operator and preloads the account in
 * a memory resolver.
 */
public final class TestNatsJwts {

    /** Account limits with nothing limited: a JWT without them would allow zero connections. */
    private static final String UNLIMITED_ACCOUNT = "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,"
            + "\"imports\":-1,\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1},"
            + "\"default_permissions\":{\"pub\":{},\"sub\":{}},\"type\":\"account\",\"version\":2}";

    private final Path dir;
    private final NKey operator;
    private final NKey account;
    private final String operatorJwt;
    private final String accountJwt;

    private TestNatsJwts(Path dir) throws GeneralSecurityException, IOException {
        this.dir = dir;
        this.operator = NKey.createOperator(null);
        this.account = NKey.createAccount(null);
        String operatorId = new String(operator.getPublicKey());
        String accountId = new String(account.getPublicKey());
        this.operatorJwt = JwtUtils.issueJWT(operator, operatorId, "varpulis-test-operator", null,
                JwtUtils.currentTimeSeconds(), operatorId, () -> "{\"type\":\"operator\",\"version\":2}");
        this.accountJwt = JwtUtils.issueJWT(operator, accountId, "varpulis-test-account", null,
                JwtUtils.currentTimeSeconds(), operatorId, () -> UNLIMITED_ACCOUNT);
    }

    /**
     * Creates an operator and an account.
     *
     * @param dir where the operator JWT and the creds files go (created when missing)
     * @return the setup
     */
    public static TestNatsJwts create(Path dir) {
        try {
            Files.createDirectories(dir);
            return new TestNatsJwts(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create nkeys", e);
        }
    }

    /**
     * @return nats-server configuration for operator mode: this operator, this account preloaded
     */
    public String serverConfig() {
        Path operatorFile = dir.resolve("operator.jwt");
        write(operatorFile, operatorJwt);
        return "operator: \"" + operatorFile + "\"\n"
                + "resolver: MEMORY\n"
                + "resolver_preload: {\n  " + new String(publicKey(account)) + ": \"" + accountJwt + "\"\n}\n";
    }

    /**
     * Writes a {@code .creds} file for a new user of the account.
     *
     * @param name the user's name, also the file name stem
     * @return the file
     */
    public Path userCreds(String name) {
        return userCreds(name, account);
    }

    /**
     * Writes a {@code .creds} file for a user signed by an account the server does not know.
     *
     * @param name the user's name, also the file name stem
     * @return the file
     */
    public Path foreignUserCreds(String name) {
        try {
            return userCreds(name, NKey.createAccount(null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create an nkey", e);
        }
    }

    private Path userCreds(String name, NKey signingAccount) {
        try {
            NKey user = NKey.createUser(null);
            String jwt = JwtUtils.issueUserJWT(signingAccount, new String(signingAccount.getPublicKey()),
                    new String(user.getPublicKey()), name);
            Path file = dir.resolve(name + ".creds");
            write(file, String.format(JwtUtils.NATS_USER_JWT_FORMAT, jwt, new String(user.getSeed())));
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign the user JWT", e);
        }
    }

    private static char[] publicKey(NKey key) {
        try {
            return key.getPublicKey();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
