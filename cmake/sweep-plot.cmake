# The sweep-plot target's script: runs `clreduce --sweep --csv` (unless CSV names an existing
# file) and draws GB/s against length with gnuplot, one line per finish, the stream read (the
# ceiling on GPUs) as a dashed line and the host reference beside them.
#
#   -D CLREDUCE=path     the executable
#   -D ARGS=a;b;c        extra clreduce arguments (e.g. -t;gpu;-o;min)
#   -D CSV=path          the CSV to write, or to read if it exists and SWEEP is OFF
#   -D SWEEP=ON|OFF      run the sweep (ON) or plot CSV as it is (OFF)
#   -D PNG=path          the picture
#   -D TITLE=text        the plot's title
#   -D GNUPLOT=path      gnuplot

string(REPLACE ";" " " TITLE "${TITLE}")
if(SWEEP)
  execute_process(COMMAND ${CLREDUCE} --sweep --csv ${ARGS}
                  OUTPUT_FILE ${CSV} RESULT_VARIABLE exit_code)
  if(NOT exit_code EQUAL 0)
    message(FATAL_ERROR "clreduce --sweep failed (exit code ${exit_code})")
  endif()
endif()
if(NOT EXISTS "${CSV}")
  message(FATAL_ERROR "no sweep CSV at ${CSV}")
endif()

# Columns: length,type,op,finish,passes,span_us,span_us_median,gbps,read_us,read_gbps,of_read,
#          observed_us,observed_us_median,reference_us,reference_gbps,valid
set(script "
set datafile separator ','
set terminal pngcairo size 1000,600 font ',11'
set output '${PNG}'
set title '${TITLE}' noenhanced
set logscale x 2
set format x '2^{%L}'
set xlabel 'length (values)'
set ylabel 'GB/s (best of the timed runs)'
set key top left
set grid
finish(name, column) = strcol(4) eq name ? column(column) : NaN
plot '${CSV}' using 1:(finish('passes', 8)) skip 1 with linespoints lw 2 pt 7 title 'clreduce --finish passes', \\
     '' using 1:(finish('last-group', 8)) skip 1 with linespoints lw 2 pt 5 title 'clreduce --finish last-group', \\
     '' using 1:10 skip 1 with lines lw 2 dt 2 title 'stream read (the ceiling on GPUs)', \\
     '' using 1:15 skip 1 with linespoints lw 1 pt 6 title 'host std::reduce(par_unseq)' noenhanced
")
file(WRITE "${PNG}.gp" "${script}")
execute_process(COMMAND ${GNUPLOT} "${PNG}.gp" RESULT_VARIABLE exit_code)
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "gnuplot failed (exit code ${exit_code})")
endif()
message(STATUS "sweep plot: ${PNG} (data: ${CSV})")
