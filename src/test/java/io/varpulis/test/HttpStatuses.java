package io.varpulis.test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The status a node's HTTP port answers a {@code GET} with, for tests of who may call
 * what.
 */
public final class HttpStatuses {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private HttpStatuses() {
    }

    /**
     * @param port a loopback port
     * @param path the path
     * @param authorization the {@code Authorization} header, or {@code null} for none
     * @return the status of {@code GET http://127.0.0.1:{port}{path}}
     * @throws Exception when the request fails
     */
    public static int get(int port, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

}
