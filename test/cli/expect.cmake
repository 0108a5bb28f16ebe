# Runs one command line and checks how it ended; a CLI test is one call of this script.
#
#   -D COMMAND=...        the command and its arguments, separated by "^^"
#   -D ENVIRONMENT=...    optional NAME=VALUE settings, separated by "^^"
#   -D EXIT=n             the exit code expected
#   -D STDOUT=regex       optional: stdout must match
#   -D STDOUT_NOT=regex   optional: stdout must not match
#   -D STDOUT_FILE=path   optional: send stdout there instead (e.g. /dev/full)
#   -D STDERR=regex       optional: stderr must match
#   -D ONE_ERROR_LINE=ON  stderr must hold exactly one "clreduce: error: " line
#   -D QUIET_STDERR=ON    stderr must be empty (Oclgrind prints its findings there)
#   -D JSON_CHECK=python  stdout must be exactly one valid JSON value, without NaN or Infinity

string(REPLACE "^^" ";" command "${COMMAND}")
string(REPLACE "^^" ";" environment "${ENVIRONMENT}")
if(STDOUT_FILE)
  set(stdout_to OUTPUT_FILE "${STDOUT_FILE}")
else()
  set(stdout_to OUTPUT_VARIABLE out)
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env ${environment} ${command}
  RESULT_VARIABLE exit_code
  ${stdout_to}
  ERROR_VARIABLE err
  TIMEOUT 600)

set(problems "")
if(NOT exit_code STREQUAL EXIT)
  string(APPEND problems "exit code ${exit_code}, expected ${EXIT}\n")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  string(APPEND problems "stdout does not match '${STDOUT}'\n")
endif()
if(DEFINED STDOUT_NOT AND out MATCHES "${STDOUT_NOT}")
  string(APPEND problems "stdout matches '${STDOUT_NOT}'\n")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  string(APPEND problems "stderr does not match '${STDERR}'\n")
endif()
if(JSON_CHECK)
  # Python's json module takes NaN and Infinity unless told not to; JSON has neither.
  execute_process(
    COMMAND "${JSON_CHECK}" -c
            "import json, sys; json.loads(sys.argv[1], parse_constant=lambda c: sys.exit('bare ' + c))"
            "${out}"
    RESULT_VARIABLE json_exit_code
    ERROR_VARIABLE json_error)
  if(NOT json_exit_code EQUAL 0)
    string(APPEND problems "stdout is not valid JSON: ${json_error}\n")
  endif()
endif()
if(ONE_ERROR_LINE)
  string(REPLACE ";" "," err_without_list_separators "${err}")
  string(REGEX MATCHALL "(^|\n)clreduce: error: [^\n]+" error_lines
         "${err_without_list_separators}")
  list(LENGTH error_lines count)
  if(NOT count EQUAL 1)
    string(APPEND problems "stderr holds ${count} 'clreduce: error:' lines, expected one\n")
  endif()
endif()
if(QUIET_STDERR AND NOT err STREQUAL "")
  string(APPEND problems "stderr is not empty\n")
endif()

if(problems)
  message(FATAL_ERROR "${problems}--- command: ${command}\n--- stdout:\n${out}--- stderr:\n${err}")
endif()
