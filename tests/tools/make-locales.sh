#!/usr/bin/env bash
# Makes the non-UTF-8 locales tests/python/test_locales.py runs the corpus
# under (ISO-8859-1, KOI8-R, EUC-JP, Shift_JIS, EUC-KR, GB18030, Big5), those
# `locale -a` does not list yet: a second run does nothing. glibc's localedef,
# as root (it writes the system's locale archive); installs Debian's locales
# package when localedef or its sources are missing. Where it cannot, it says
# so and exits 0: the test then skips each missing locale, naming it.
#
#   tests/tools/make-locales.sh        (.ci/run runs it before make test)
set -euo pipefail

# <locale> <source> <charmap>, as test_locales.py's LOCALES.
wanted='en_US.ISO-8859-1 en_US ISO-8859-1
ru_RU.KOI8-R ru_RU KOI8-R
ja_JP.EUC-JP ja_JP EUC-JP
ja_JP.SJIS ja_JP SHIFT_JIS
ko_KR.EUC-KR ko_KR EUC-KR
zh_CN.GB18030 zh_CN GB18030
zh_TW.BIG5 zh_TW BIG5'

# glibc lists a locale with its codeset in lower case and without dashes.
normalized() {
  local codeset=${1#*.}
  codeset=${codeset//-/}
  printf '%s.%s\n' "${1%%.*}" "$codeset" | tr 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' 'abcdefghijklmnopqrstuvwxyz'
}

have=$(locale -a 2>/dev/null | tr 'ABCDEFGHIJKLMNOPQRSTUVWXYZ' 'abcdefghijklmnopqrstuvwxyz') || have=
missing=''
while read -r name source charmap; do
  case $'\n'$have$'\n' in *$'\n'"$(normalized "$name")"$'\n'*) ;; *) missing="$missing$name $source $charmap"$'\n' ;; esac
done <<<"$wanted"
[ -n "$missing" ] || exit 0

if [ "$(id -u)" != 0 ]; then
  echo "make-locales: not root; test_locales.py skips what is missing: $(printf '%s' "$missing" | cut -d' ' -f1 | tr '\n' ' ')"
  exit 0
fi
if ! command -v localedef >/dev/null 2>&1 || [ ! -d /usr/share/i18n/charmaps ]; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -q locales >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q locales >/dev/null 2>&1; } || :
  fi
fi
if ! command -v localedef >/dev/null 2>&1; then
  echo "make-locales: no localedef (glibc's locales package); test_locales.py skips every locale"
  exit 0
fi
while read -r name source charmap; do
  [ -n "$name" ] || continue
  # -c: Shift_JIS is no ASCII superset (0x5C is the yen sign), which localedef
  # warns of with exit 1, the locale made all the same.
  localedef -c -i "$source" -f "$charmap" "$name" >/dev/null 2>&1 || :
  echo "make-locales: $name"
done <<<"$missing"
