/* jansson, as the Swift engine sees it. Installed by `apt-get install libjansson-dev`. */
#include <jansson.h>
