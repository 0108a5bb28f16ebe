# Checks cmake/sweep-plot.cmake without gnuplot: the data it writes for a known CSV, and that
# a failed sweep leaves no CSV behind.
#
#   -D SCRIPT=path   cmake/sweep-plot.cmake
#   -D SOURCE=path   this folder (sweep.csv: two finishes, two lengths, a quoted device)
#   -D WORK=path     a scratch folder

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(problems "")

execute_process(
  COMMAND ${CMAKE_COMMAND} -DCSV=${SOURCE}/sweep.csv -DSWEEP=OFF -DPNG=${WORK}/sweep.png -P ${SCRIPT}
  RESULT_VARIABLE exit_code ERROR_VARIABLE err)
if(NOT exit_code EQUAL 0)
  string(APPEND problems "plotting a CSV failed: ${err}\n")
endif()
file(READ "${WORK}/sweep.png.dat" data)
# Each finish is a series of its own (so its points join up); the stream read and the
# reference come from the first finish's rows: one point per length, no vertical jumps.
set(expected_data "# passes\n1024 0.82\n2048 1.64\n\n\n# last-group\n1024 0.82\n2048 1.71\n\n\n# read\n1024 1.02\n2048 2.05\n\n\n# reference\n1024 1.37\n2048 2.73\n\n\n")
if(NOT data STREQUAL expected_data)
  string(APPEND problems "data:\n${data}\nexpected:\n${expected_data}\n")
endif()
file(READ "${WORK}/sweep.png.gp" script)
if(NOT script MATCHES "set title 'clreduce --sweep: min of int32 on GPU, \"model\" X' noenhanced")
  string(APPEND problems "the title is not the CSV's run:\n${script}\n")
endif()
if(NOT script MATCHES "index 0 using 1:2 with linespoints[^\n]*--finish passes'.*index 1 using 1:2 with linespoints[^\n]*last-group'.*index 2 using 1:2 with lines lw 2 dt 2 .*index 3 using")
  string(APPEND problems "the series are not drawn as the legend says:\n${script}\n")
endif()

# A sweep that fails (here: an executable that rejects the arguments) leaves no CSV.
execute_process(
  COMMAND ${CMAKE_COMMAND} -DCLREDUCE=${CMAKE_COMMAND} -DARGS=-E;false -DCSV=${WORK}/failed.csv
          -DSWEEP=ON -DPNG=${WORK}/failed.png -P ${SCRIPT}
  RESULT_VARIABLE exit_code OUTPUT_QUIET ERROR_QUIET)
if(exit_code EQUAL 0)
  string(APPEND problems "a failed sweep was plotted\n")
endif()
if(EXISTS "${WORK}/failed.csv" OR EXISTS "${WORK}/failed.csv.part")
  string(APPEND problems "a failed sweep left a CSV behind\n")
endif()

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
