package dev.sluice.gateway.usage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import reactor.core.publisher.Flux;

class UsageRecordingResponseTest {
    private static final Encoding O200K = Encodings.newLazyEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
    private static final String ANSWER =
            "{\"id\":\"chatcmpl-1\",\"choices\":[{\"message\":{\"content\":\"H\u00e9llo, \u4e16\u754c\"}}],"
                    + "\"usage\":{\"prompt_tokens\":13,\"completion_tokens\":2,\"total_tokens\":15}}";

    /** A JSON answer reaches the client byte for byte, in its own chunks, and its usage is read from the copy. */
    @Test
    void aJsonAnswerPassesUnchangedAndItsUsageIsRead() {
        byte[] bytes = ANSWER.getBytes(UTF_8);
        for (int cut = 1; cut < bytes.length; cut += 7) {
            MockServerHttpResponse client = new MockServerHttpResponse();
            client.getHeaders().setContentType(MediaType.APPLICATION_JSON);
            UsageRecordingResponse response = new UsageRecordingResponse(client, false, O200K);
            List<DataBuffer> chunks = new ArrayList<>();
            for (int at = 0; at < bytes.length; at += cut) {
                chunks.add(DefaultDataBufferFactory.sharedInstance.wrap(
                        Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + cut))));
            }
            response.writeWith(Flux.fromIterable(chunks)).block();

            byte[] received = DataBufferUtils.join(client.getBody())
                    .map(b -> {
                        byte[] out = new byte[b.readableByteCount()];
                        b.read(out);
                        return out;
                    })
                    .block();
            assertThat(received).as("cut every %d bytes", cut).isEqualTo(bytes);
            assertThat(response.usage()).as("cut every %d bytes", cut).contains(new Usage(13, 2));
        }
    }
}
