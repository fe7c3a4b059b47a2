package dev.sluice.gateway.objects;

import java.util.Objects;

/**
 * What a request does to a family's objects, read from its method and path alone.
 *
 * @param id          for {@link Action#OBJECT}, the top-level object named by the path (a
 *                    thread's messages are the thread's), else null
 * @param createdIdAt for {@link Action#CREATE}, the field of the answer naming the object made
 *                    ({@code id}; {@code thread_id} when a run creates its thread)
 */
public record ObjectRequest(ObjectFamily family, Action action, String id, String createdIdAt) {
    public enum Action {
        /** POST on the family: the answer's id becomes the caller's. */
        CREATE,
        /** GET of the family: the answer's page is cut to the caller's objects. */
        LIST,
        /** Anything on one object or below it: only its owner may. */
        OBJECT
    }

    public ObjectRequest {
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(action, "action");
        if ((action == Action.OBJECT) != (id != null)) throw new IllegalArgumentException("an id is for OBJECT only");
    }
}
