package dev.sluice.gateway.config;

import jakarta.validation.Valid;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DataSizeUnit;
import org.springframework.util.unit.DataSize;
import org.springframework.util.unit.DataUnit;
import org.springframework.validation.annotation.Validated;

/**
 * The gateway's top-level settings, from the environment rather than tiers.yaml:
 * {@code SLUICE_TIERS_PATH}, {@code SLUICE_PROVIDER_URL}, {@code SLUICE_DEMO_TENANTS},
 * {@code SLUICE_MAX_REQUEST_BYTES} (each underscore may stand for a dot or a dash).
 *
 * @param tiers           where tiers.yaml comes from and how often edits are picked up
 * @param provider        the upstream provider
 * @param demo            the demo tenants of tiers.yaml
 * @param maxRequestBytes largest request body the gateway reads (a plain number is bytes, or e.g. 8MB);
 *                        larger ones get 413 request_too_large
 */
@ConfigurationProperties("sluice")
@Validated
public record SluiceProperties(
        @Valid @DefaultValue Tiers tiers,
        @DefaultValue Provider provider,
        @DefaultValue Demo demo,

        @DefaultValue("8388608") @DataSizeUnit(DataUnit.BYTES)
        DataSize maxRequestBytes) {
    public SluiceProperties {
        tiers = tiers == null ? new Tiers("", null) : tiers;
        provider = provider == null ? new Provider("") : provider;
        demo = demo == null ? new Demo(null) : demo;
        maxRequestBytes = maxRequestBytes == null ? DataSize.ofBytes(8_388_608) : maxRequestBytes;
        // EstimateFilter buffers the body in one int-indexed buffer.
        if (maxRequestBytes.toBytes() < 1 || maxRequestBytes.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("sluice.max-request-bytes must be between 1 and " + Integer.MAX_VALUE
                    + " bytes, was " + maxRequestBytes);
        }
    }

    public String tiersPath() {
        return tiers.path();
    }

    public Boolean demoTenants() {
        return demo.tenants();
    }

    /**
     * @param path         tiers.yaml to load (SLUICE_TIERS_PATH); empty: ./tiers.yaml if present,
     *                     else the copy in the jar
     * @param pollInterval how often a replica on Redis looks for tiers edits made on other replicas
     */
    public record Tiers(
            String path,

            @DurationMin(nanos = 0, inclusive = false) @DefaultValue("1s")
            Duration pollInterval) {
        public Tiers {
            path = path == null ? "" : path.trim();
            pollInterval = pollInterval == null ? Duration.ofSeconds(1) : pollInterval;
        }
    }

    /**
     * @param url the upstream's base URL, e.g. https://api.openai.com/v1 (SLUICE_PROVIDER_URL);
     *            empty: tiers.yaml's base-url, else the lab provider
     */
    public record Provider(String url) {
        public Provider {
            url = url == null ? "" : url.trim();
        }
    }

    /**
     * @param tenants load tiers.yaml's demo tenants (SLUICE_DEMO_TENANTS); unset: only with the lab
     *                provider
     */
    public record Demo(Boolean tenants) {}
}
