package io.varpulis.autoconfigure;

import io.varpulis.nats.NatsConnectionDetails;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@link NatsConnectionDetails} from {@code varpulis.nats.*}, checked when created: every
 * bad value fails startup with an {@link InvalidConfigurationPropertyValueException} that
 * names the property, the value and the fix (an empty or malformed URL, two
 * authentication methods, a missing file, half a key pair, an unknown SSL bundle).
 */
public class PropertiesNatsConnectionDetails implements NatsConnectionDetails {

    private final List<String> servers;

    private final NatsConnectionProperties properties;

    private final @Nullable Path credentialsFile;

    private final @Nullable Path nkeySeedFile;

    private final @Nullable SslBundle sslBundle;

    /**
     * @param properties the settings
     * @param sslBundles the application's SSL bundles, for
     * {@code varpulis.nats.tls.bundle}; may be {@code null}
     * @throws InvalidConfigurationPropertyValueException naming the first bad property
     */
    public PropertiesNatsConnectionDetails(NatsConnectionProperties properties, @Nullable SslBundles sslBundles) {
        this.properties = properties;
        this.servers = servers(properties.getUrl());
        checkAuthentication(properties);
        this.credentialsFile = properties.getCredentials() == null ? null
                : readableFile("varpulis.nats.credentials", properties.getCredentials());
        this.nkeySeedFile = properties.getNkeySeedFile() == null ? null : nkeySeed(properties.getNkeySeedFile());
        this.sslBundle = sslBundle(properties, servers, sslBundles);
    }

    /**
     * @param properties the settings, without SSL bundles
     * @throws InvalidConfigurationPropertyValueException naming the first bad property
     */
    public PropertiesNatsConnectionDetails(NatsConnectionProperties properties) {
        this(properties, null);
    }

    @Override
    public List<String> getServers() {
        return servers;
    }

    @Override
    public @Nullable String getUsername() {
        return properties.getUsername();
    }

    @Override
    public @Nullable String getPassword() {
        return properties.getPassword();
    }

    @Override
    public @Nullable String getToken() {
        return properties.getToken();
    }

    @Override
    public @Nullable Path getCredentialsFile() {
        return credentialsFile;
    }

    @Override
    public @Nullable Path getNkeySeedFile() {
        return nkeySeedFile;
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
        return sslBundle;
    }

    private static List<String> servers(String url) {
        List<String> servers = url == null ? List.of()
                : Arrays.stream(url.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (servers.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                    "At least one server URL is required, for example nats://localhost:4222 (a comma-separated list "
                            + "is allowed).");
        }
        for (String server : servers) {
            checkServer(url, server);
        }
        return servers;
    }

    /**
     * A URL jnats would refuse with a stack trace is refused here with the property's
     * name (issue 15).
     */
    private static void checkServer(String url, String server) {
        String withScheme = server.contains("://") ? server : "nats://" + server;
        String scheme = withScheme.substring(0, withScheme.indexOf("://")).toLowerCase(Locale.ROOT);
        if (!List.of("nats", "tls", "ws", "wss").contains(scheme)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url, "'" + server
                    + "' has an unknown scheme; use nats:// or tls://, for example " + "nats://localhost:4222.");
        }
        String authority = withScheme.substring(withScheme.indexOf("://") + 3).split("[/?#]", 2)[0];
        String hostPort = authority.substring(authority.lastIndexOf('@') + 1);
        int colon = hostPort.startsWith("[") ? hostPort.indexOf(':', hostPort.indexOf(']')) : hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        String port = colon < 0 ? null : hostPort.substring(colon + 1);
        if (host.isBlank()) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                    "'" + server + "' has no host; write nats://HOST:PORT, for example nats://localhost:4222.");
        }
        if (port != null
                && (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535)) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                    "'" + server + "' has port '" + port + "', which is not a port number (1 to 65535); write "
                            + "nats://HOST:PORT, for example nats://localhost:4222.");
        }
        try {
            new URI(withScheme);
        }
        catch (URISyntaxException e) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.url", url,
                    "'" + server + "' is not a URL (" + e.getReason() + "); write nats://HOST:PORT, for example "
                            + "nats://localhost:4222 (a comma-separated list is allowed).");
        }
    }

    private static void checkAuthentication(NatsConnectionProperties p) {
        List<String> methods = new ArrayList<>();
        if (p.getCredentials() != null) {
            methods.add("varpulis.nats.credentials");
        }
        if (p.getNkeySeedFile() != null) {
            methods.add("varpulis.nats.nkey-seed-file");
        }
        if (p.getToken() != null) {
            methods.add("varpulis.nats.token");
        }
        if (p.getUsername() != null || p.getPassword() != null) {
            methods.add(p.getUsername() != null ? "varpulis.nats.username" : "varpulis.nats.password");
        }
        if (methods.size() > 1) {
            throw new InvalidConfigurationPropertyValueException(methods.get(1), "(set)",
                    "Only one NATS authentication method may be set, found " + String.join(" and ", methods)
                            + "; remove all but one.");
        }
        if (p.getUsername() != null && p.getPassword() == null) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.password", null,
                    "varpulis.nats.username is set without a password; set both or neither.");
        }
        if (p.getPassword() != null && p.getUsername() == null) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.username", null,
                    "varpulis.nats.password is set without a username; set both or neither.");
        }
    }

    private static Path nkeySeed(String path) {
        Path file = readableFile("varpulis.nats.nkey-seed-file", path);
        String seed;
        try {
            seed = Files.readString(file, StandardCharsets.UTF_8).trim();
        }
        catch (IOException e) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.nkey-seed-file", path,
                    "The file cannot be read: " + e);
        }
        if (!seed.startsWith("SU")) {
            throw new InvalidConfigurationPropertyValueException("varpulis.nats.nkey-seed-file", path,
                    "The file does not hold a user nkey seed (a line starting with SU).");
        }
        return file;
    }

    private static @Nullable SslBundle sslBundle(NatsConnectionProperties p, List<String> servers,
            @Nullable SslBundles bundles) {
        NatsConnectionProperties.Tls tls = p.getTls();
        boolean tlsUrl = servers.stream().anyMatch(s -> s.toLowerCase(Locale.ROOT).startsWith("tls://"));
        boolean files = tls.getCaFile() != null || tls.getCertFile() != null || tls.getKeyFile() != null;
        if (tls.getBundle() != null) {
            if (files) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.tls.bundle", tls.getBundle(),
                        "Give either an SSL bundle or the PEM files (ca-file, cert-file, key-file), not both.");
            }
            if (bundles == null) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.tls.bundle", tls.getBundle(),
                        "No SSL bundles are configured in this application; declare it under spring.ssl.bundle "
                                + "or use varpulis.nats.tls.ca-file.");
            }
            try {
                return bundles.getBundle(tls.getBundle());
            }
            catch (NoSuchSslBundleException e) {
                throw new InvalidConfigurationPropertyValueException("varpulis.nats.tls.bundle", tls.getBundle(),
                        "There is no SSL bundle of that name; declare it under spring.ssl.bundle.pem." + tls.getBundle()
                                + " (or .jks).");
            }
        }
        if (!tlsUrl && !files && !tls.isEnabled()) {
            return null;
        }
        if ((tls.getCertFile() == null) != (tls.getKeyFile() == null)) {
            String missing = tls.getCertFile() == null ? "varpulis.nats.tls.cert-file" : "varpulis.nats.tls.key-file";
            throw new InvalidConfigurationPropertyValueException(missing, null,
                    "A client certificate needs both cert-file and key-file; set the missing one or remove the other.");
        }
        if (!files) {
            // No store: the JVM's default trust managers verify the server.
            return SslBundle.of(SslStoreBundle.NONE);
        }
        PemSslStoreDetails keyStore = tls.getCertFile() == null ? null
                : PemSslStoreDetails.forCertificate(location("varpulis.nats.tls.cert-file", tls.getCertFile()))
                    .withPrivateKey(location("varpulis.nats.tls.key-file", tls.getKeyFile()));
        PemSslStoreDetails trustStore = tls.getCaFile() == null ? null
                : PemSslStoreDetails.forCertificate(location("varpulis.nats.tls.ca-file", tls.getCaFile()));
        return SslBundle.of(new PemSslStoreBundle(keyStore, trustStore));
    }

    private static String location(String property, String path) {
        return "file:" + readableFile(property, path);
    }

    private static Path readableFile(String property, String path) {
        Path file = Path.of(path);
        if (!Files.isReadable(file)) {
            throw new InvalidConfigurationPropertyValueException(property, path,
                    "The file does not exist or cannot be read; give the path of a readable file.");
        }
        return file.toAbsolutePath();
    }

}
