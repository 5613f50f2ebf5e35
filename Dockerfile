# syntax=docker/dockerfile:1
#
# Varpulis cluster node image: one image for every role (coordinator, worker, standalone).
#
#   docker build -t varpulis/varpulis-cluster:0.1.0 .
#   docker run --rm -e VARPULIS_NATS_URL=nats://host.docker.internal:4222 \
#       varpulis/varpulis-cluster:0.1.0 --varpulis.cluster.role=standalone
#
# Both stages pin the Ubuntu (noble) flavour of Temurin: it ships curl, which HEALTHCHECK below
# uses, and the same glibc in the build and run stages.

# ---- build: compile the Spring Boot jar and split it into layers -------------------------------
FROM eclipse-temurin:17-jdk-noble AS build
WORKDIR /workspace

COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY src/ src/

# The cache mount keeps ~/.m2 (Maven itself and every dependency) between builds without
# putting it in an image layer. Tests run in CI, not here: they need a NATS server.
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B -q -Dmaven.test.skip=true package

# Layers ordered from least to most often changed (dependencies, loader, snapshots, our code),
# so a code change rebuilds and ships only the last, small layer.
RUN cp target/varpulis-cluster-*.jar application.jar \
 && java -Djarmode=tools -jar application.jar extract --layers --destination extracted

# ---- runtime: JRE only, non-root ----------------------------------------------------------------
FROM eclipse-temurin:17-jre-noble

# A fixed numeric uid/gid: Kubernetes can only check runAsNonRoot against a numeric USER, and
# 10001 stays clear of the base image's own users (ubuntu is 1000).
RUN groupadd --system --gid 10001 varpulis \
 && useradd --system --uid 10001 --gid varpulis --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin varpulis

WORKDIR /application
# Files stay owned by root: the process can read its code but not change it.
COPY --from=build /workspace/extracted/dependencies/ ./
COPY --from=build /workspace/extracted/spring-boot-loader/ ./
COPY --from=build /workspace/extracted/snapshot-dependencies/ ./
COPY --from=build /workspace/extracted/application/ ./

# No -Xmx: the heap follows the container's memory limit. Setting JAVA_TOOL_OPTIONS at run time
# replaces this default as a whole (for example "-XX:MaxRAMPercentage=60 -Xlog:gc").
# ExitOnOutOfMemoryError lets the orchestrator restart a node instead of leaving it half alive.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
# Spring Boot turns the liveness and readiness health groups on by itself only on Kubernetes;
# HEALTHCHECK and docker-compose need them everywhere.
ENV MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED=true

USER 10001:10001

# REST API (/api/v1/cluster/...) and actuator (/actuator/health, /actuator/prometheus).
EXPOSE 8080

# Readiness, not liveness: "healthy" then means connected to NATS and able to serve, which is
# what docker-compose's depends_on waits for. start-period covers JVM start and the NATS
# startup retry (varpulis.nats.startup-retry-timeout, 30s).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null http://127.0.0.1:8080/actuator/health/readiness || exit 1

# Exec form: java is PID 1 and receives SIGTERM directly, so Spring's graceful shutdown and the
# worker drain run. Arguments after the image name are appended (--varpulis.cluster.role=...).
ENTRYPOINT ["java", "-jar", "application.jar"]
