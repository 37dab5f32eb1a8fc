# SPDX-License-Identifier: Apache-2.0
# One tool's manual page from its own --help and --version (help2man) and the sections they do
# not carry (man/<tool>.h2m), at build time. A tool without --help or --version skips its page
# with a message; the build goes on.
# cmake -DHELP2MAN=... -DTOOL=<executable> -DNAME=<tool> -DINCLUDE=<tool.h2m> -DFILTER=<sh>
#       -DSOURCE=<footer> -DWORKDIR=<dir> -DOUTPUT=<page> -P gv_help2man.cmake
file(REMOVE "${OUTPUT}")
# help2man takes the program's name from the file it runs: a wrapper named as the tool.
file(MAKE_DIRECTORY "${WORKDIR}")
set(wrap "${WORKDIR}/${NAME}")
file(WRITE "${wrap}" "#!/bin/sh\nexec /bin/sh '${FILTER}' '${TOOL}' \"$@\"\n")
file(CHMOD "${wrap}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
     WORLD_READ WORLD_EXECUTE)
set(include "")
if(INCLUDE)
  set(include "--include=${INCLUDE}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C LANGUAGE=
                        "${HELP2MAN}" --no-info --section=1 "--source=${SOURCE}" ${include}
                        "--output=${OUTPUT}.tmp" "${wrap}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUTPUT}.tmp")
  string(STRIP "${out}${err}" why)
  message(WARNING "${NAME}(1) not generated: ${NAME} --help and --version must print on stdout "
                  "and exit 0 (help2man: ${why})")
  file(REMOVE "${OUTPUT}.tmp")
  return()
endif()
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
