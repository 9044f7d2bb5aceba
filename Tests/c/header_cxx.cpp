// include/reshape.h alone, as C++.
#include "reshape.h"

int main() {
    reshape_error err = reshape_error();
    reshape_rules *rules = nullptr;
    (void)rules;
    return err.code == RESHAPE_OK ? 0 : 1;
}
