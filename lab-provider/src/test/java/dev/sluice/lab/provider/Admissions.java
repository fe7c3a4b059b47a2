package dev.sluice.lab.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.lab.provider.Admission.Admitted;
import dev.sluice.lab.provider.Admission.Rejected;

/** The simulator tests' unwrapping of an admission, asserting which kind it is first. */
final class Admissions {
    private Admissions() {}

    static LabCall admitted(Admission a) {
        assertThat(a).isInstanceOf(Admitted.class);
        return ((Admitted) a).call();
    }

    static Rejected rejected(Admission a) {
        assertThat(a).isInstanceOf(Rejected.class);
        return (Rejected) a;
    }
}
