package io.varpulis.jetstream;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** ADR-007's durable consumer and DLQ names (SPEC section 4), without a broker. */
class DurableNamesTest {

    private static final String EDGE = "varpulis.cluster.pipeline.ssh.ingest.detector";

    @Test
    void routeConsumerIsRoutePipelineAndSubjectWithEveryOtherCharacterReplaced() {
        assertThat(DurableNames.routeConsumer("detector", EDGE))
            .isEqualTo("route_detector__varpulis_cluster_pipeline_ssh_ingest_detector");
        assertThat(DurableNames.routeConsumer("my-pipe_1", "a.*.>")).isEqualTo("route_my-pipe_1__a____");
    }

    @Test
    void twoPipelinesOnOneSubjectGetTwoDurables() {
        assertThat(DurableNames.routeConsumer("alerts", EDGE)).isNotEqualTo(DurableNames.routeConsumer("audit", EDGE));
    }

    @Test
    void fnv1a64MatchesTheReferenceVectors() {
        assertThat(DurableNames.fnv1a64Hex("")).isEqualTo("cbf29ce484222325");
        assertThat(DurableNames.fnv1a64Hex("a")).isEqualTo("af63dc4c8601ec8c");
        assertThat(DurableNames.fnv1a64Hex("foobar")).isEqualTo("85944171f73967e8");
    }

    @Test
    void fnv1a64IsAlwaysSixteenLowerCaseHexDigits() {
        // "a" hashes with a leading 'a'; find inputs whose hash starts with zeros to
        // prove the padding.
        for (int i = 0; i < 5000; i++) {
            String text = "x" + i;
            assertThat(DurableNames.fnv1a64Hex(text)).matches("[0-9a-f]{16}").isEqualTo(referenceFnv1a64(text));
        }
    }

    @Test
    void routeConsumerOfExactly96CharactersIsKeptWhole() {
        String subject = "s".repeat(96 - "route_p__".length());
        String name = DurableNames.routeConsumer("p", subject);

        assertThat(name).hasSize(96).isEqualTo("route_p__" + subject);
    }

    @Test
    void routeConsumerLongerThan96IsFirst79CharactersUnderscoreAndFnvOfTheRawName() {
        String subject = "varpulis.cluster.pipeline." + "group".repeat(10) + ".from.to";
        String raw = "route_detector__" + subject;
        String sanitised = raw.replace('.', '_');

        String name = DurableNames.routeConsumer("detector", subject);

        assertThat(raw.length()).isGreaterThan(96);
        assertThat(name).hasSize(96)
            .startsWith(sanitised.substring(0, 79))
            .isEqualTo(sanitised.substring(0, 79) + "_" + referenceFnv1a64(raw));
        assertThat(name.charAt(79)).isEqualTo('_');
        assertThat(name.substring(80)).matches("[0-9a-f]{16}");
    }

    @Test
    void truncatedNameHashesTheRawNameNotTheSanitisedOne() {
        // Same sanitised form, different raw names: the hash keeps them apart.
        String dots = "x".repeat(40) + "." + "y".repeat(60);
        String underscores = "x".repeat(40) + "_" + "y".repeat(60);

        String fromDots = DurableNames.routeConsumer("p", dots);
        String fromUnderscores = DurableNames.routeConsumer("p", underscores);

        assertThat(fromDots).isNotEqualTo(fromUnderscores);
        assertThat(fromDots).endsWith(referenceFnv1a64("route_p__" + dots));
        assertThat(fromUnderscores).endsWith(referenceFnv1a64("route_p__" + underscores));
    }

    @Test
    void routeConsumerOf97CharactersIsHashed() {
        String subject = "s".repeat(97 - "route_p__".length());

        String name = DurableNames.routeConsumer("p", subject);

        assertThat(name).hasSize(96)
            .isEqualTo(("route_p__" + subject).substring(0, 79) + "_" + referenceFnv1a64("route_p__" + subject));
    }

    @Test
    void heartbeatConsumerIsHbAndTheSanitisedCoordinatorId() {
        assertThat(DurableNames.heartbeatConsumer("coordinator-0")).isEqualTo("hb_coordinator-0");
        assertThat(DurableNames.heartbeatConsumer("varpulis.coord 1")).isEqualTo("hb_varpulis_coord_1");
    }

    @Test
    void heartbeatConsumerTooLongIsHbAndTheFnvOfTheRawId() {
        String fits = "c".repeat(93);
        String tooLong = "c.".repeat(47);

        assertThat(DurableNames.heartbeatConsumer(fits)).hasSize(96).isEqualTo("hb_" + fits);
        assertThat(DurableNames.heartbeatConsumer(tooLong)).isEqualTo("hb_" + referenceFnv1a64(tooLong)).hasSize(19);
    }

    @Test
    void dlqSubjectOfACoordinatorUnitIsSanitised() {
        assertThat(DurableNames.dlqSubject("coordinator:c-1")).isEqualTo("varpulis.dlq.coordinator_c-1");
        assertThat(DurableNames.dlqSubject("detector")).isEqualTo("varpulis.dlq.detector");
        assertThat(DurableNames.dlqSubject("a.b*c>")).isEqualTo("varpulis.dlq.a_b_c_");
    }

    @Test
    void eachNonAsciiCodePointBecomesOneUnderscore() {
        // 'é' is one UTF-16 unit, the emoji two (a surrogate pair): both are one code
        // point, so one '_'.
        assertThat(DurableNames.sanitize("café\uD83D\uDE00x")).isEqualTo("caf__x");
        assertThat(DurableNames.routeConsumer("détecteur", "a.b")).isEqualTo("route_d_tecteur__a_b");
        assertThat(DurableNames.heartbeatConsumer("\uD83D\uDE00")).isEqualTo("hb__");
    }

    @Test
    void nonAsciiRawNameIsHashedAsUtf8() {
        String subject = "é".repeat(100);

        String name = DurableNames.routeConsumer("p", subject);

        assertThat(name).hasSize(96)
            .isEqualTo(
                    ("route_p__" + "_".repeat(100)).substring(0, 79) + "_" + referenceFnv1a64("route_p__" + subject));
    }

    @Test
    void generatedNamesOnlyUseDurableNameCharacters() {
        assertThat(DurableNames.routeConsumer("p q", "a.b\tc/d\\e")).matches("[A-Za-z0-9_-]+");
        assertThat(DurableNames.heartbeatConsumer("host.example.com:8080")).matches("[A-Za-z0-9_-]+");
    }

    /**
     * FNV-1a 64 written independently of the code under test, with unsigned arithmetic.
     */
    private static String referenceFnv1a64(String text) {
        BigInteger mod = BigInteger.ONE.shiftLeft(64);
        BigInteger prime = new BigInteger("100000001b3", 16);
        BigInteger hash = new BigInteger("cbf29ce484222325", 16);
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash = hash.xor(BigInteger.valueOf(b & 0xff)).multiply(prime).mod(mod);
        }
        String hex = hash.toString(16);
        return "0".repeat(16 - hex.length()) + hex;
    }

}
