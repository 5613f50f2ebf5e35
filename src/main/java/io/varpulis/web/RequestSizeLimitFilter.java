package io.varpulis.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.util.unit.DataSize;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Refuses request bodies over {@code varpulis.security.max-request-size} with 413 (SPEC
 * section 10: a body over the limit is 413, never 503). A declared {@code Content-Length}
 * over the limit is refused before anything is read; a chunked body is counted while it
 * is read and fails with {@link RequestTooLargeException}, which {@link ApiErrorAdvice}
 * answers with 413. It runs inside the security filter chain, after authorization, so a
 * caller without credentials learns nothing but 401.
 */
public class RequestSizeLimitFilter extends OncePerRequestFilter {

    private final long maxBytes;

    /**
     * @param maxRequestSize the largest body read
     */
    public RequestSizeLimitFilter(DataSize maxRequestSize) {
        this.maxBytes = maxRequestSize.toBytes();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            String error = tooLarge(declared + " bytes");
            RequestAudit.refused(request, HttpStatus.CONTENT_TOO_LARGE.value(), error);
            ApiSecurityErrors.write(response, HttpStatus.CONTENT_TOO_LARGE, error);
            return;
        }
        chain.doFilter(declared >= 0 ? request : new Bounded(request, maxBytes), response);
    }

    private String tooLarge(String size) {
        return "the request body is " + size + "; the limit is " + maxBytes
                + " bytes (varpulis.security.max-request-size)";
    }

    /** A body read past the limit: {@link ApiErrorAdvice} answers 413. */
    public static final class RequestTooLargeException extends IOException {

        RequestTooLargeException(String message) {
            super(message);
        }

    }

    /** A request whose body stream fails once more than the limit was read. */
    private static final class Bounded extends HttpServletRequestWrapper {

        private final long maxBytes;

        private ServletInputStream stream;

        Bounded(HttpServletRequest request, long maxBytes) {
            super(request);
            this.maxBytes = maxBytes;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new CountingStream(super.getInputStream(), maxBytes);
            }
            return stream;
        }

    }

    private static final class CountingStream extends ServletInputStream {

        private final ServletInputStream in;

        private final long maxBytes;

        private long read;

        CountingStream(ServletInputStream in, long maxBytes) {
            this.in = in;
            this.maxBytes = maxBytes;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws RequestTooLargeException {
            read += n;
            if (read > maxBytes) {
                throw new RequestTooLargeException("the request body is more than " + maxBytes + " bytes; the "
                        + "limit is " + maxBytes + " bytes (varpulis.security.max-request-size)");
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }

    }

}
