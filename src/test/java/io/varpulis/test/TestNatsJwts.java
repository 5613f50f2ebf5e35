package io.varpulis.test;

import io.nats.client.NKey;
import io.nats.client.support.JwtUtils;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;

/**
 * A decentralised-auth (operator mode) setup made without the {@code nsc} tool: an
 * operator, one account it signs, and {@code .creds} files for users the account signs,
 * with jnats' {@link JwtUtils} and {@link NKey}.
 * <p>
 * {@link #serverConfig()} is the nats-server configuration that trusts the operator and
 * preloads the account (JetStream enabled) and a system account in a memory resolver.
 */
public final class TestNatsJwts {

    /**
     * Account limits with nothing limited, JetStream included: a JWT without them would
     * allow zero connections and no JetStream.
     */
    private static final String UNLIMITED_ACCOUNT = "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,"
            + "\"imports\":-1,\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1,"
            + "\"mem_storage\":-1,\"disk_storage\":-1,\"streams\":-1,\"consumer\":-1},"
            + "\"default_permissions\":{\"pub\":{},\"sub\":{}},\"type\":\"account\",\"version\":2}";

    /**
     * The system account's limits: connections only, no JetStream (the server refuses
     * JetStream there).
     */
    private static final String SYSTEM_ACCOUNT = "{\"limits\":{\"subs\":-1,\"data\":-1,\"payload\":-1,"
            + "\"imports\":-1,\"exports\":-1,\"wildcards\":true,\"conn\":-1,\"leaf\":-1},"
            + "\"type\":\"account\",\"version\":2}";

    private final Path dir;

    private final NKey operator;

    private final NKey account;

    private final NKey systemAccount;

    private final String operatorJwt;

    private final String accountJwt;

    private final String systemAccountJwt;

    private TestNatsJwts(Path dir) throws GeneralSecurityException, IOException {
        this.dir = dir;
        this.operator = NKey.createOperator(null);
        this.account = NKey.createAccount(null);
        this.systemAccount = NKey.createAccount(null);
        String operatorId = new String(operator.getPublicKey());
        String accountId = new String(account.getPublicKey());
        String systemAccountId = new String(systemAccount.getPublicKey());
        this.operatorJwt = JwtUtils.issueJWT(operator, operatorId, "varpulis-test-operator", null,
                JwtUtils.currentTimeSeconds(), operatorId, () -> "{\"type\":\"operator\",\"version\":2}");
        this.accountJwt = JwtUtils.issueJWT(operator, accountId, "varpulis-test-account", null,
                JwtUtils.currentTimeSeconds(), operatorId, () -> UNLIMITED_ACCOUNT);
        // JetStream in operator mode needs a system account for its internal
        // subscriptions.
        this.systemAccountJwt = JwtUtils.issueJWT(operator, systemAccountId, "SYS", null, JwtUtils.currentTimeSeconds(),
                operatorId, () -> SYSTEM_ACCOUNT);
    }

    /**
     * Creates an operator and an account.
     * @param dir where the operator JWT and the creds files go (created when missing)
     * @return the setup
     */
    public static TestNatsJwts create(Path dir) {
        try {
            Files.createDirectories(dir);
            return new TestNatsJwts(dir);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create nkeys", e);
        }
    }

    /**
     * @return nats-server configuration for operator mode: this operator, this account
     * preloaded
     */
    public String serverConfig() {
        Path operatorFile = dir.resolve("operator.jwt");
        write(operatorFile, operatorJwt);
        return "operator: \"" + operatorFile + "\"\n" + "system_account: " + new String(publicKey(systemAccount)) + "\n"
                + "resolver: MEMORY\n" + "resolver_preload: {\n  " + new String(publicKey(account)) + ": \""
                + accountJwt + "\"\n  " + new String(publicKey(systemAccount)) + ": \"" + systemAccountJwt + "\"\n}\n";
    }

    /**
     * Writes a {@code .creds} file for a new user of the account.
     * @param name the user's name, also the file name stem
     * @return the file
     */
    public Path userCreds(String name) {
        return userCreds(name, account);
    }

    /**
     * Writes a {@code .creds} file for a new user of the account with these permissions,
     * as
     * {@code nsc add user --allow-pub ... --deny-pub ... --allow-sub ... --allow-pub-response=1}
     * signs them.
     * @param name the user's name, also the file name stem
     * @param publishAllow subjects it may publish to
     * @param publishDeny subjects it may not publish to
     * @param subscribe subjects it may subscribe to
     * @param responses whether it may answer one reply per request it received
     * @return the file
     */
    public Path userCreds(String name, List<String> publishAllow, List<String> publishDeny, List<String> subscribe,
            boolean responses) {
        JwtUtils.UserClaim claim = new JwtUtils.UserClaim(new String(publicKey(account)))
            .pub(new JwtUtils.Permission().allow(publishAllow.toArray(String[]::new))
                .deny(publishDeny.toArray(String[]::new)))
            .sub(new JwtUtils.Permission().allow(subscribe.toArray(String[]::new)));
        if (responses) {
            claim.resp(new JwtUtils.ResponsePermission().maxMsgs(1));
        }
        return userCreds(name, account, claim);
    }

    /**
     * Writes a {@code .creds} file for a user signed by an account the server does not
     * know.
     * @param name the user's name, also the file name stem
     * @return the file
     */
    public Path foreignUserCreds(String name) {
        try {
            return userCreds(name, NKey.createAccount(null));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot create an nkey", e);
        }
    }

    private Path userCreds(String name, NKey signingAccount) {
        return userCreds(name, signingAccount, null);
    }

    private Path userCreds(String name, NKey signingAccount, JwtUtils.UserClaim claim) {
        try {
            NKey user = NKey.createUser(null);
            String jwt = claim == null
                    ? JwtUtils.issueUserJWT(signingAccount, new String(signingAccount.getPublicKey()),
                            new String(user.getPublicKey()), name)
                    : JwtUtils.issueUserJWT(signingAccount, new String(user.getPublicKey()), name, null,
                            JwtUtils.currentTimeSeconds(), claim);
            Path file = dir.resolve(name + ".creds");
            write(file, String.format(JwtUtils.NATS_USER_JWT_FORMAT, jwt, new String(user.getSeed())));
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign the user JWT", e);
        }
    }

    private static char[] publicKey(NKey key) {
        try {
            return key.getPublicKey();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
