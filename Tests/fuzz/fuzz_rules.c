/* libFuzzer harness: rules documents, applied to the inputs of several fixtures. The fuzz input is
   the rules document. */
#include <stddef.h>
#include <stdint.h>

#include "oracle.h"
#include "samples.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    samples_load();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* A fixed handful of inputs, so that a rules document always meets the same documents. */
    for (size_t index = 0; index < sample_count && index < 24; index += 3) {
        oracle_check((const char *)data, size, samples[index].input, samples[index].input_length, 0, NULL);
    }
    return 0;
}
