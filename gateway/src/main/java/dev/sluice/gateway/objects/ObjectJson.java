package dev.sluice.gateway.objects;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The mapper of this capability: trailing garbage after a JSON value is refused, as the estimate stage refuses it. */
final class ObjectJson {
    static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private ObjectJson() {}
}
