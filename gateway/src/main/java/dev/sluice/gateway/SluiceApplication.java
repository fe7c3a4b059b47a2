package dev.sluice.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** Sluice: a multi-tenant gateway in front of OpenAI-compatible LLM providers. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SluiceApplication {
    public static void main(String[] args) {
        SpringApplication.run(SluiceApplication.class, args);
    }
}
