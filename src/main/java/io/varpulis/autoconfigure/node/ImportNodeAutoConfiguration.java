package io.varpulis.autoconfigure.node;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Imports the node's auto-configurations (the coordinator and worker parts, the operator
 * API and its security, the main job's processors), listed in
 * {@code META-INF/spring/io.varpulis.autoconfigure.node.ImportNodeAutoConfiguration.imports}.
 * They are ordered with Spring Boot's own auto-configurations, as if listed in the
 * library's imports file; the library jar carries neither this package nor that file
 * (issue 35: one boundary, declared by package), so a service never sees them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ImportAutoConfiguration
public @interface ImportNodeAutoConfiguration {

}
