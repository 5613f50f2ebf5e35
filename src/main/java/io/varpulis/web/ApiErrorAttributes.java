package io.varpulis.web;

import org.springframework.boot.web.error.ErrorAttributeOptions;
import org.springframework.boot.webmvc.error.DefaultErrorAttributes;
import org.springframework.web.context.request.WebRequest;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What Spring Boot's {@code /error} answers on a node: {@code {"error": "..."}} like
 * every other refusal of the operator API, instead of the default
 * {@code timestamp}/{@code status}/{@code path} map. Reached only by errors no handler
 * answered (a servlet container refusal, an error on the management port).
 */
public class ApiErrorAttributes extends DefaultErrorAttributes {

    @Override
    public Map<String, Object> getErrorAttributes(WebRequest request, ErrorAttributeOptions options) {
        Map<String, Object> defaults = super.getErrorAttributes(request,
                options.including(ErrorAttributeOptions.Include.MESSAGE, ErrorAttributeOptions.Include.PATH));
        String reason = String.valueOf(defaults.getOrDefault("error", "error")).toLowerCase();
        Object message = defaults.get("message");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", reason + (message == null || message.toString().isBlank() ? "" : ": " + message)
                + (defaults.get("path") == null ? "" : " (" + defaults.get("path") + ")"));
        return body;
    }

}
