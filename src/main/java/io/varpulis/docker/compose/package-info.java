/**
 * Connection details for a {@code nats} service started by
 * {@code spring-boot-docker-compose}: the manner of Spring Boot's
 * {@code ...docker.compose} packages. Depends only on {@code io.varpulis.nats}.
 */
@NullMarked
package io.varpulis.docker.compose;

import org.jspecify.annotations.NullMarked;
