package io.varpulis.web;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import org.springdoc.core.customizers.OpenApiCustomizer;

import java.util.List;
import java.util.Map;

/**
 * Completes the operator API's OpenAPI document ({@code GET /v3/api-docs}, role VIEWER;
 * SPEC section 15) with what springdoc cannot infer from the controllers: the credentials
 * ({@code basic}, and {@code bearer} with an identity provider), and the refusals every
 * operation may answer, each an {@link ApiError}: 401 without valid credentials, 403 for
 * a lesser role ({@link ApiAccessRules}), 400 for a path or query value of the wrong type
 * or an unreadable body, 413 for a body over {@code varpulis.security.max-request-size},
 * 415 for a body that is not JSON ({@link ApiErrorAdvice},
 * {@link RequestSizeLimitFilter}). An operation's own answers (201, 404, 409, 503...) are
 * annotated on its controller method; an error response without content gets the
 * {@link ApiError} body here.
 */
public class OperatorApiDocument implements OpenApiCustomizer {

    /** The name of the {@link ApiError} schema in the document's components. */
    public static final String ERROR_SCHEMA = "ApiError";

    private static final String JSON = org.springframework.http.MediaType.APPLICATION_JSON_VALUE;

    private static final String BASIC = "basic";

    private static final String BEARER = "bearer";

    private final String version;

    /**
     * @param version the node's version, the document's {@code info.version}
     */
    public OperatorApiDocument(String version) {
        this.version = version;
    }

    @Override
    public void customise(OpenAPI api) {
        api.info(new Info().title("Varpulis node operator API")
            .version(version)
            .description("The coordinator's "
                    + "operator API: workers, leader, pipeline groups, injection, topology and the dead-letter console. "
                    + "Every answer but 2xx is {\"error\": \"...\"}. Roles: VIEWER reads, OPERATOR also declares groups, "
                    + "injects and replays, ADMIN also deletes and purges."));
        Components components = api.getComponents() == null ? new Components() : api.getComponents();
        components.addSecuritySchemes(BASIC,
                new SecurityScheme().type(SecurityScheme.Type.HTTP)
                    .scheme("basic")
                    .description("spring.security.user.name / password (the jar's user varpulis, role ADMIN)"));
        components.addSecuritySchemes(BEARER,
                new SecurityScheme().type(SecurityScheme.Type.HTTP)
                    .scheme("bearer")
                    .bearerFormat("JWT")
                    .description("a JWT of the configured identity provider, roles in its 'roles' "
                            + "claim; only with spring.security.oauth2.resourceserver.jwt.*"));
        components.addSchemas(ERROR_SCHEMA, errorSchema());
        api.components(components);
        api.security(List.of(new SecurityRequirement().addList(BASIC), new SecurityRequirement().addList(BEARER)));
        if (api.getPaths() != null) {
            api.getPaths().values().forEach(path -> path.readOperations().forEach(o -> complete(o, api)));
        }
    }

    private static void complete(Operation operation, OpenAPI api) {
        ApiResponses responses = operation.getResponses() == null ? new ApiResponses() : operation.getResponses();
        putIfAbsent(responses, "401", "no credentials, bad credentials or an invalid bearer token");
        putIfAbsent(responses, "403", "the principal lacks the role this operation needs");
        boolean parameters = operation.getParameters() != null && !operation.getParameters().isEmpty();
        if (parameters || operation.getRequestBody() != null) {
            putIfAbsent(responses, "400", "a path or query value of the wrong type, or a body that is not the "
                    + "expected JSON (an unknown field is named)");
        }
        if (operation.getRequestBody() != null) {
            putIfAbsent(responses, "413", "a body over varpulis.security.max-request-size");
            putIfAbsent(responses, "415", "a body that is not Content-Type: application/json");
        }
        responses.forEach((status, response) -> {
            if (status.equals("204")) {
                response.content(null);
            }
            else if (!status.startsWith("2") && !isErrorBody(response.getContent(), api)) {
                response.content(errorContent());
            }
        });
        operation.responses(responses);
    }

    /**
     * springdoc gives an annotated error response the method's return type: every error
     * is an {@link ApiError}, or an object with its {@code error} field and more (an
     * {@link InjectionNotConfirmed} carries the id to retry with), named explicitly by
     * the annotation.
     */
    private static boolean isErrorBody(Content content, OpenAPI api) {
        if (content == null || content.size() != 1 || content.get(JSON) == null || content.get(JSON).getSchema() == null
                || content.get(JSON).getSchema().get$ref() == null) {
            return false;
        }
        String ref = content.get(JSON).getSchema().get$ref();
        Schema<?> schema = api.getComponents().getSchemas().get(ref.substring(ref.lastIndexOf('/') + 1));
        return schema != null && schema.getProperties() != null && schema.getProperties().containsKey("error");
    }

    private static void putIfAbsent(ApiResponses responses, String status, String description) {
        if (!responses.containsKey(status)) {
            responses.addApiResponse(status, new ApiResponse().description(description));
        }
    }

    private static Content errorContent() {
        return new Content().addMediaType(JSON,
                new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + ERROR_SCHEMA)));
    }

    private static Schema<?> errorSchema() {
        ObjectSchema schema = new ObjectSchema();
        schema.description("every refusal of the node: what went wrong and, where it helps, what to do");
        schema.properties(Map.of("error", new StringSchema()));
        schema.required(List.of("error"));
        return schema;
    }

}
