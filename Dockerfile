# syntax=docker/dockerfile:1
#
# The Sluice gateway image, over Spring Boot's layered jar.
#
#   ./mvnw -B -pl gateway -am package -DskipTests     # builds gateway/target/sluice-gateway-<version>-exec.jar
#   docker build -t sluice:0.1.0 .
#
# The jar is built outside Docker (the same jar CI tests), then split into Boot's layers so that
# a code change rebuilds only the small `application` layer, not the ~65 MB of dependencies.
# CI has no Docker engine: gateway/src/test/java/dev/sluice/gateway/packaging/DockerImageLayoutIT
# runs this file's extract command on the built jar, checks every COPY below against its
# output and starts the gateway from the copied layout (./mvnw -B verify).

ARG JRE_IMAGE=eclipse-temurin:17-jre

FROM ${JRE_IMAGE} AS builder
WORKDIR /builder
ARG JAR_FILE=gateway/target/sluice-gateway-*-exec.jar
COPY ${JAR_FILE} application.jar
RUN java -Djarmode=tools -jar application.jar extract --layers --launcher --destination extracted

FROM ${JRE_IMAGE}
# A fixed numeric user, so Kubernetes' runAsNonRoot can verify it without a name lookup.
RUN groupadd --system --gid 10001 sluice \
 && useradd --system --uid 10001 --gid sluice --no-create-home --home-dir /application --shell /usr/sbin/nologin sluice
WORKDIR /application
# Least to most often changed. Files stay owned by root: the process cannot rewrite its own code.
COPY --from=builder /builder/extracted/dependencies/ ./
COPY --from=builder /builder/extracted/spring-boot-loader/ ./
COPY --from=builder /builder/extracted/snapshot-dependencies/ ./
COPY --from=builder /builder/extracted/application/ ./
USER 10001:10001
# Heap as a share of the container's memory limit (the JVM reads the cgroup limit), the rest left
# for Netty's direct buffers, metaspace and thread stacks. Replace the whole variable to change it
# (the Helm chart sets it from values: jvm.options). /tmp is the only place written at run time.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75.0 -XX:InitialRAMPercentage=50.0 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
EXPOSE 8080
ENTRYPOINT ["java", "org.springframework.boot.loader.launch.JarLauncher"]
