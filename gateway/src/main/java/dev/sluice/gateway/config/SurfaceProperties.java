package dev.sluice.gateway.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DataSizeUnit;
import org.springframework.util.unit.DataSize;
import org.springframework.util.unit.DataUnit;

/**
 * The tenant API's door ({@code sluice.surface.*}). JSON bodies are bounded by
 * {@code sluice.max-request-bytes}, since the estimate stage reads them whole; uploads are
 * streamed to the provider, counted as they pass, and bounded here.
 *
 * @param maxFileBytes largest upload body (POST /v1/files, audio and image forms, upload parts);
 *                     a plain number is bytes, or e.g. 32MB. Larger ones get 413 request_too_large
 */
@ConfigurationProperties("sluice.surface")
public record SurfaceProperties(
        @DefaultValue("32MB") @DataSizeUnit(DataUnit.BYTES) DataSize maxFileBytes) {
    public SurfaceProperties {
        maxFileBytes = maxFileBytes == null ? DataSize.ofMegabytes(32) : maxFileBytes;
        if (maxFileBytes.toBytes() < 1) {
            throw new IllegalArgumentException(
                    "sluice.surface.max-file-bytes must be at least 1 byte, was " + maxFileBytes);
        }
    }
}
