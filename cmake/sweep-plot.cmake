# The sweep-plot target's script: runs `clreduce --sweep --csv` (unless CSV names an existing
# file) and draws GB/s against length with gnuplot, one line per finish, the stream read (the
# ceiling on GPUs) as a dashed line and the host reference beside them.
#
#   -D CLREDUCE=path     the executable
#   -D ARGS=a;b;c        extra clreduce arguments (e.g. -t;gpu;-o;min)
#   -D CSV=path          the CSV to write, or to read if it exists and SWEEP is OFF
#   -D SWEEP=ON|OFF      run the sweep (ON) or plot CSV as it is (OFF)
#   -D PNG=path          the picture; its script and data go beside it (PNG.gp, PNG.dat)
#   -D GNUPLOT=path      gnuplot; empty: write the script and data only (the tests do)
#
# The title comes from the CSV itself (op, type, device), so a CSV made elsewhere is named
# after the run that made it.

if(SWEEP)
  # Written beside the CSV first, so that a failed run leaves no empty or partial CSV.
  execute_process(COMMAND ${CLREDUCE} --sweep --csv ${ARGS}
                  OUTPUT_FILE "${CSV}.part" RESULT_VARIABLE exit_code)
  if(NOT exit_code EQUAL 0)
    file(REMOVE "${CSV}.part")
    message(FATAL_ERROR "clreduce --sweep failed (exit code ${exit_code}); no CSV written")
  endif()
  file(RENAME "${CSV}.part" "${CSV}")
endif()
if(NOT EXISTS "${CSV}")
  message(FATAL_ERROR "no sweep CSV at ${CSV}")
endif()

# Columns: length,type,op,finish,passes,span_us,span_us_median,gbps,read_us,read_gbps,of_read,
#          observed_us,observed_us_median,reference_us,reference_gbps,valid,device
file(STRINGS "${CSV}" lines)
list(POP_FRONT lines header)
if(NOT header MATCHES "^length,type,op,finish,.*,reference_gbps,valid,device$")
  message(FATAL_ERROR "${CSV} is not a clreduce --sweep --csv table (header: ${header})")
endif()

# One series per finish; the stream read and the host reference are measured beside every
# finish, so they are drawn from the first finish's rows only: one point per length.
set(series_passes "")
set(series_last-group "")
set(series_read "")
set(series_reference "")
set(first_finish "")
# The device, the last field, may be quoted and hold commas: split off the first 16 fields.
string(REPEAT "[^,]*," 16 first_fields)
foreach(line IN LISTS lines)
  string(REGEX MATCH "^(${first_fields})(.*)$" matched "${line}")
  string(REPLACE "," ";" fields "${CMAKE_MATCH_1}")
  set(device "${CMAKE_MATCH_2}")
  list(GET fields 0 length)
  list(GET fields 1 type)
  list(GET fields 2 op)
  list(GET fields 3 finish)
  list(GET fields 7 gbps)
  list(GET fields 9 read_gbps)
  list(GET fields 14 reference_gbps)
  if(first_finish STREQUAL "")
    set(first_finish "${finish}")
    string(REGEX REPLACE "^\"(.*)\"$" "\\1" device "${device}")
    string(REPLACE "\"\"" "\"" device "${device}")
    string(REPLACE "'" "''" device "${device}") # gnuplot's single-quoted strings
    set(title "clreduce --sweep: ${op} of ${type} on ${device}")
  endif()
  string(APPEND "series_${finish}" "${length} ${gbps}\n")
  if(finish STREQUAL first_finish)
    string(APPEND series_read "${length} ${read_gbps}\n")
    string(APPEND series_reference "${length} ${reference_gbps}\n")
  endif()
endforeach()

# The data file holds one gnuplot index per series that has points, in this order.
set(styles
  "passes|with linespoints lw 2 pt 7 title 'clreduce --finish passes'"
  "last-group|with linespoints lw 2 pt 5 title 'clreduce --finish last-group'"
  "read|with lines lw 2 dt 2 title 'stream read (the ceiling on GPUs)'"
  "reference|with linespoints lw 1 pt 6 title 'host std::reduce(par_unseq)' noenhanced")
set(data "")
set(plots "")
set(index 0)
foreach(style IN LISTS styles)
  string(REPLACE "|" ";" style "${style}")
  list(GET style 0 name)
  list(GET style 1 drawing)
  if(NOT series_${name} STREQUAL "")
    string(APPEND data "# ${name}\n${series_${name}}\n\n")
    list(APPEND plots "'${PNG}.dat' index ${index} using 1:2 ${drawing}")
    math(EXPR index "${index} + 1")
  endif()
endforeach()
list(JOIN plots ", \\\n     " plots)
file(WRITE "${PNG}.dat" "${data}")

set(script "
set terminal pngcairo size 1000,600 font ',11'
set output '${PNG}'
set title '${title}' noenhanced
set logscale x 2
set format x '2^{%L}'
set xlabel 'length (values)'
set ylabel 'GB/s (best of the timed runs)'
set key top left
set grid
plot ${plots}
")
file(WRITE "${PNG}.gp" "${script}")
if(NOT GNUPLOT)
  message(STATUS "sweep plot script: ${PNG}.gp (data: ${PNG}.dat)")
  return()
endif()
execute_process(COMMAND ${GNUPLOT} "${PNG}.gp" RESULT_VARIABLE exit_code)
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "gnuplot failed (exit code ${exit_code})")
endif()
message(STATUS "sweep plot: ${PNG} (data: ${CSV})")
