package dev.sluice.lab.scenario;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The lab report as JSON, exactly the contract's fields (docs/lab.md). */
public final class LabReportJson {
    private static final JsonMapper MAPPER =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    private LabReportJson() {}

    public static String write(LabReport report) {
        return MAPPER.writeValueAsString(report);
    }

    public static LabReport read(String json) {
        return MAPPER.readValue(json, LabReport.class);
    }
}
