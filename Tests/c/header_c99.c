/* include/reshape.h alone, as strict C99. */
#include "reshape.h"

int main(void) {
    reshape_error err;
    err.code = RESHAPE_OK;
    return err.code + (int)(RESHAPE_PRETTY | RESHAPE_ALLOW_DUPLICATE_KEYS) - 3;
}
