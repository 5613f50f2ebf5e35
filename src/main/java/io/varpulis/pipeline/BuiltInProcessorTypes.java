package io.varpulis.pipeline;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.Indexer;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.OpDec;
import org.springframework.expression.spel.ast.OpInc;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.MapAccessor;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The processor types every node has: {@code passthrough}, {@code filter} (SpEL) and
 * {@code bean}.
 */
public final class BuiltInProcessorTypes {

    private BuiltInProcessorTypes() {
    }

    /**
     * @return {@code passthrough}: emits every input unchanged
     */
    public static ProcessorType passthrough() {
        return simple("passthrough", Set.of(), (group, pipeline) -> (event, context) -> List.of(event));
    }

    /**
     * {@code filter}: emits the input when the SpEL predicate in setting
     * {@code expression} is true. The expression sees {@code event_type},
     * {@code timestamp} (RFC 3339 text or null) and {@code fields} (a map), e.g.
     * {@code event_type == 'SshAuthFailure' and fields['user'] matches 'r.*'}. It is
     * evaluated with {@link SimpleEvaluationContext} over maps, and method calls, type,
     * constructor and bean references and assignments are refused when the group is
     * declared, so a spec that arrived over HTTP cannot run code. An event the expression
     * cannot evaluate, or one for which it gives no boolean, is parked at once
     * (unprocessable).
     * @return the type
     */
    public static ProcessorType filter() {
        SpelExpressionParser parser = new SpelExpressionParser();
        return new ProcessorType() {
            @Override
            public String name() {
                return "filter";
            }

            @Override
            public Optional<Set<String>> settings() {
                return Optional.of(Set.of("expression"));
            }

            @Override
            public void validate(PipelineGroupSpec.PipelineSpec pipeline) {
                parse(pipeline);
            }

            @Override
            public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
                Expression expression = parse(pipeline);
                EvaluationContext context = SimpleEvaluationContext.forPropertyAccessors(new MapAccessor()).build();
                return (event, processing) -> {
                    Map<String, Object> root = new HashMap<>();
                    root.put("event_type", event.eventType());
                    root.put("timestamp", event.timestamp() == null ? null : event.timestamp().toString());
                    root.put("fields", event.fields());
                    Object keep;
                    try {
                        keep = expression.getValue(context, root);
                    }
                    catch (EvaluationException e) {
                        // The same event fails the same way every time: park it now
                        // instead of five times.
                        throw new UnprocessableEventException("filter " + pipeline.name() + " cannot evaluate '"
                                + expression.getExpressionString() + "' on this event: " + e.getMessage(), e);
                    }
                    if (!(keep instanceof Boolean)) {
                        throw new UnprocessableEventException("filter " + pipeline.name() + ": '"
                                + expression.getExpressionString() + "' gave " + keep + ", not true or false");
                    }
                    return (Boolean) keep ? List.of(event) : List.of();
                };
            }

            private Expression parse(PipelineGroupSpec.PipelineSpec pipeline) {
                String text = pipeline.processor().text("expression");
                if (text == null || text.isBlank()) {
                    throw new IllegalArgumentException("filter pipeline " + pipeline.name()
                            + " needs settings.expression, e.g. \"event_type == 'SshAuthFailure'\"");
                }
                try {
                    SpelExpression expression = parser.parseRaw(text);
                    rejectCodeReferences(pipeline, text, expression.getAST());
                    return expression;
                }
                catch (ParseException e) {
                    throw new IllegalArgumentException("filter pipeline " + pipeline.name() + ": invalid SpEL "
                            + "expression '" + text + "': " + e.getMessage(), e);
                }
            }
        };
    }

    /** What an expression may read: the root map's three entries. */
    private static final List<String> ROOTS = List.of("event_type", "timestamp", "fields");

    /**
     * Refuses, when the group is declared rather than at the first event, what would
     * reach outside the event or could only fail on every event: method calls, type,
     * constructor, bean, variable and function references, assignments, selections and
     * projections, and reading anything from {@code event_type} or {@code timestamp}
     * (text: {@code event_type.class.name} would park every event). Under {@code fields},
     * map keys may be read to any depth ({@code fields.user},
     * {@code fields['geo']['country']}).
     */
    private static void rejectCodeReferences(PipelineGroupSpec.PipelineSpec pipeline, String text, SpelNode node) {
        rejectCode(pipeline, text, node);
        checkReads(pipeline, text, node);
    }

    private static void rejectCode(PipelineGroupSpec.PipelineSpec pipeline, String text, SpelNode node) {
        if (node instanceof TypeReference || node instanceof ConstructorReference || node instanceof BeanReference
                || node instanceof Assign || node instanceof MethodReference || node instanceof VariableReference
                || node instanceof FunctionReference || node instanceof Selection || node instanceof Projection
                || node instanceof OpInc || node instanceof OpDec) {
            throw refused(pipeline, text, node.toStringAST() + "; method calls, type, constructor and bean "
                    + "references, variables, functions, assignments, selections and projections are not allowed");
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            rejectCode(pipeline, text, node.getChild(i));
        }
    }

    private static void checkReads(PipelineGroupSpec.PipelineSpec pipeline, String text, SpelNode node) {
        if (node instanceof CompoundExpression path) {
            checkPath(pipeline, text, path);
            return;
        }
        if (node instanceof PropertyOrFieldReference reference) {
            checkRoot(pipeline, text, reference);
            return;
        }
        if (node instanceof Indexer) {
            throw refused(pipeline, text, node.toStringAST() + "; only fields can be indexed, as fields['name']");
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkReads(pipeline, text, node.getChild(i));
        }
    }

    /** {@code event_type}, {@code timestamp}, or {@code fields} followed by map keys. */
    private static void checkPath(PipelineGroupSpec.PipelineSpec pipeline, String text, CompoundExpression path) {
        if (!(path.getChild(0) instanceof PropertyOrFieldReference root)) {
            throw refused(pipeline, text, path.toStringAST() + "; a path starts at event_type, timestamp or fields");
        }
        checkRoot(pipeline, text, root);
        if (!root.getName().equals("fields") && path.getChildCount() > 1) {
            throw refused(pipeline, text, path.toStringAST() + "; " + root.getName() + " is text, nothing can be "
                    + "read from it (compare it instead: " + root.getName() + " == '...', matches '...')");
        }
        for (int i = 1; i < path.getChildCount(); i++) {
            SpelNode step = path.getChild(i);
            if (step instanceof Indexer) {
                for (int j = 0; j < step.getChildCount(); j++) {
                    checkReads(pipeline, text, step.getChild(j));
                }
            }
            else if (!(step instanceof PropertyOrFieldReference)) {
                throw refused(pipeline, text, path.toStringAST() + "; under fields only map keys can be read "
                        + "(fields.name or fields['name'])");
            }
        }
    }

    private static void checkRoot(PipelineGroupSpec.PipelineSpec pipeline, String text,
            PropertyOrFieldReference reference) {
        if (!ROOTS.contains(reference.getName())) {
            throw refused(pipeline, text, "'" + reference.getName() + "', which is not part of an event; an "
                    + "expression reads event_type, timestamp and fields['name']");
        }
    }

    private static IllegalArgumentException refused(PipelineGroupSpec.PipelineSpec pipeline, String text, String what) {
        return new IllegalArgumentException("filter pipeline " + pipeline.name() + ": expression '" + text + "' uses "
                + what + "; use operators (==, !=, <, >, and, or, !, matches, ?:) over the event's "
                + "event_type, timestamp and fields");
    }

    /**
     * {@code bean}: the {@link EventProcessor} bean named by setting {@code bean} of the
     * worker's application context (a service's own processor code).
     * @param beans the worker's bean factory
     * @return the type
     */
    public static ProcessorType bean(BeanFactory beans) {
        return simple("bean", Set.of("bean"), (group, pipeline) -> {
            String name = pipeline.processor().text("bean");
            if (name == null || !beans.containsBean(name)) {
                throw new IllegalArgumentException("bean pipeline " + pipeline.name() + " names no EventProcessor "
                        + "bean of this worker (settings.bean = " + name + ")");
            }
            return beans.getBean(name, EventProcessor.class);
        });
    }

    /**
     * A type from a name and a factory function.
     * @param name the type name
     * @param factory creates the processor
     * @return the type
     */
    public static ProcessorType simple(String name, Factory factory) {
        return simple(name, null, factory);
    }

    /**
     * A type from a name, the settings it reads and a factory function.
     * @param name the type name
     * @param settings the setting names it reads (others are refused when a group is
     * declared), or {@code null} to accept any
     * @param factory creates the processor
     * @return the type
     */
    public static ProcessorType simple(String name, Set<String> settings, Factory factory) {
        return new ProcessorType() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Optional<Set<String>> settings() {
                return Optional.ofNullable(settings);
            }

            @Override
            public EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline) {
                return factory.create(group, pipeline);
            }
        };
    }

    /**
     * Creates a processor for a pipeline.
     */
    @FunctionalInterface
    public interface Factory {

        /**
         * @param group the group
         * @param pipeline the pipeline
         * @return the processor
         */
        EventProcessor create(PipelineGroupSpec group, PipelineGroupSpec.PipelineSpec pipeline);

    }

}
