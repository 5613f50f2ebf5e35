/**
 * Connection details for {@code @ServiceConnection} NATS containers (Testcontainers): the
 * manner of Spring Boot's {@code ...testcontainers} packages. Depends only on
 * {@code io.varpulis.nats}.
 */
@NullMarked
package io.varpulis.testcontainers;

import org.jspecify.annotations.NullMarked;
