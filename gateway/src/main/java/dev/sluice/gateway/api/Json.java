package dev.sluice.gateway.api;

import tools.jackson.core.SerializableString;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/** Writes the JSON the gateway sends below Spring's codecs: error bodies, the model listing. */
public final class Json {
    private static final JsonMapper MAPPER = JsonMapper.builder(
                    JsonFactory.builder().characterEscapes(new Escapes()).build())
            .build();

    private Json() {}

    public static String write(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    /**
     * Control characters other than newline, return and tab as six-character escapes in lower-case
     * hex, the bytes these bodies have always had (Jackson alone writes backspace and form feed as
     * two-character escapes, and its hex in upper-case).
     */
    private static final class Escapes extends CharacterEscapes {
        private static final int[] ASCII = CharacterEscapes.standardAsciiEscapesForJSON();

        static {
            for (int c = 0; c < 0x20; c++) {
                if (c != '\n' && c != '\r' && c != '\t') ASCII[c] = ESCAPE_CUSTOM;
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ASCII;
        }

        /** Jackson asks about every character past ASCII too: those stay as they are (null). */
        @Override
        public SerializableString getEscapeSequence(int ch) {
            return ch < 0x20 ? new SerializedString(String.format("\\u%04x", ch)) : null;
        }
    }
}
