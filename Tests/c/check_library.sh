#!/bin/sh
# The built library exports exactly the functions the header declares, has its SONAME, needs no
# Swift runtime library, and no glibc newer than 2.34 (RHEL 9, Amazon Linux 2023; the Python
# wheel's manylinux_2_34 tag; see Sources/CGlibcCompat/hypotf.c).
set -eu
library=$1 header=$2 soname=$3
status=0

exported=$(nm -D --defined-only "$library" | awk '{print $3}' | sort)
declared=$(grep -E '^[a-z][a-z_ ]*[ *]reshape_[a-z0-9_]+\(' "$header" | sed -E 's/.*(reshape_[a-z0-9_]+)\(.*/\1/' | sort)
if [ "$exported" != "$declared" ]; then
  echo "exported symbols differ from the header's functions:"
  echo "exported: $exported"
  echo "declared: $declared"
  status=1
fi
[ -n "$declared" ] || { echo "no declarations found in $header"; status=1; }

actual=$(readelf -d "$library" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$actual" = "$soname" ] || { echo "SONAME is '$actual', expected '$soname'"; status=1; }

needed=$(ldd "$library")
if echo "$needed" | grep -qi swift; then
  echo "the library needs a Swift runtime library:"; echo "$needed"; status=1
fi
for name in $(echo "$needed" | awk '{print $1}'); do
  case "$name" in
    linux-vdso.so.*|/lib64/ld-linux-*|libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libjansson.so.*) ;;
    *) echo "unexpected dependency: $name"; status=1 ;;
  esac
done
newest=$(objdump -T "$library" | grep -oE 'GLIBC_2\.[0-9]+' | sort -t. -k2 -n -u | tail -1)
case "$newest" in
  GLIBC_2.[0-9]|GLIBC_2.[12][0-9]|GLIBC_2.3[0-4]) ;;
  *) echo "the library needs $newest, newer than glibc 2.34:"
     objdump -T "$library" | grep -E "$newest" | sed 's/^/  /'
     status=1 ;;
esac
[ $status = 0 ] && echo "exports: $(echo $exported | tr '\n' ' '); SONAME $actual; dependencies ok; needs at most $newest"
exit $status
