// Many reductions in one launch: one result per segment of the input (SegmentedReducer,
// docs/axes.md). Appended to reduce.cl's text, whose types and declared op functions it uses,
// the scalar ones only (load, map, identity, op): every op and type, an accumulator that is a
// struct included, reduces per segment with no code of its own here. A value's index, as map
// sees it, is its position within its segment (NumPy's argmax(axis=) counts so), plus
// `index_base` (the first row of a chunk of a longer axis, streamed from host memory).
//
//   reduce_segments   segments of consecutive values (rows, CSR offsets): a team of `width`
//                     neighbouring work-items per segment (one work-item for narrow rows, the
//                     whole work-group for long ones), or several teams per segment (`chunks`),
//                     whose partials a second launch reduces as rows.
//   reduce_columns    segments whose values lie `columns` apart (a reduced leading axis): each
//                     work-item owns a column, so that neighbouring work-items read neighbouring
//                     values; narrow matrices put several rows in one work-group's reads.
//   reduce_vector_rows  narrow rows on GPUs: a work-item a row, the tile's rows read as
//                     vectors side by side, their parts meeting in local memory.
//   reduce_vector_row_runs  whole rows on CPUs only (REDUCE_CONTIGUOUS): a work-item a row,
//                     read as vectors.
//   ..._batched       the two where a work-item reduces a whole narrow row or column a tile:
//                     several tiles at once.
//   reduce_column_strips  few rows of many columns on GPUs: each work-item owns a strip of
//                     SEGMENT_STRIP neighbouring columns, a row's strip one vector load.
//   reduce_column_runs  CPUs only (REDUCE_CONTIGUOUS): columns, a work-item per strip of
//                     them, each row's strip one contiguous run.
//
// All work in tiles, each what a work-group reads at once (a column strip's: a strip and chunk
// per work-item); a launch holds no more work-groups than the device runs well together, each
// looping over several neighbouring tiles. All write accumulators; passes over partials are built
// with the accumulator as input_t and map as a conversion, as reduce.cl's are.

// The values of one work-item's share, [from, to) with `step` between them, mapped and
// reduced; index i of the share is at in[base + i * stride], and map sees it as
// index_base + i (a chunk of a longer axis counts on from where the chunk begins). Four
// accumulators keep four independent loads in flight. On a CPU a work-item reads its share
// alone, and a long one is read as four parts at once, four streams for the core's prefetcher
// where neighbouring values were one (on the 16-core PoCL long rows in chunks took 0.50 to
// 0.82 times as long, docs/axes.md); parts of fewer than 16 values would share cache lines.
accum_t fold_share(global const input_t* in, ulong base, ulong stride, ulong from, ulong to,
                   ulong step, ulong index_base) {
    accum_t a = identity();
    accum_t b = a, c = a, d = a;
    ulong i = from;
#if defined(REDUCE_CONTIGUOUS)
    if (step == 1 && to - from >= 64) {
        const ulong part = (to - from) / 4;
        for (; i < from + part; ++i) {
            a = op(a, map(load(in, base + i * stride), index_base + i));
            b = op(b, map(load(in, base + (i + part) * stride), index_base + i + part));
            c = op(c, map(load(in, base + (i + 2 * part) * stride), index_base + i + 2 * part));
            d = op(d, map(load(in, base + (i + 3 * part) * stride), index_base + i + 3 * part));
        }
        i = from + 4 * part;
    }
#endif
    for (; i + 3 * step < to; i += 4 * step) {
        a = op(a, map(load(in, base + i * stride), index_base + i));
        b = op(b, map(load(in, base + (i + step) * stride), index_base + i + step));
        c = op(c, map(load(in, base + (i + 2 * step) * stride), index_base + i + 2 * step));
        d = op(d, map(load(in, base + (i + 3 * step) * stride), index_base + i + 3 * step));
    }
    for (; i < to; i += step)
        a = op(a, map(load(in, base + i * stride), index_base + i));
    return op(op(a, b), op(c, d));
}

// The tiles a batched kernel's work-item reduces at once (SegmentPass::batch, segment_plan.cpp).
#define SEGMENT_BATCH 4

// `count` (at most SEGMENT_BATCH) shares of `length` values each at once, share b's value i at
// in[base[b] + i * stride], mapped as index_base + i, reduced into value[b]. Where a work-item
// reads only a few values a tile (a narrow row, a short column), a tile at a time leaves few
// loads in flight: the store of one tile's result comes before the next tile's loads. The
// loops over the shares unroll, their arrays are registers; `count` is the same for a whole
// work-group, so the loads it leaves out diverge nowhere.
void fold_batch(global const input_t* in, const ulong* base, uint count, ulong stride, ulong length,
                ulong index_base, accum_t* value) {
#pragma unroll
    for (uint b = 0; b < SEGMENT_BATCH; ++b)
        value[b] = identity();
    for (ulong i = 0; i < length; ++i)
#pragma unroll
        for (uint b = 0; b < SEGMENT_BATCH; ++b)
            if (b < count)
                value[b] = op(value[b], map(load(in, base[b] + i * stride), index_base + i));
}

// Where chunk `chunk` of `chunks` of a segment of `length` values begins.
ulong chunk_begin(ulong length, ulong chunks, ulong chunk) {
    const ulong size = length / chunks + (length % chunks != 0);
    return min(chunk * size, length);
}

// The tiles of this work-group, [*from, *to): a launch holds at most as many work-groups as the
// device runs well at once, and each takes `tiles_per_group` neighbouring tiles (a tile is what
// a work-group of one tile would do). Fewer, longer-lived work-items: on the H100 a work-item
// per row of 2 values spent more on its start than on its reads.
void group_tiles(ulong tiles, uint tiles_per_group, ulong* from, ulong* to) {
    *from = get_group_id(0) * (ulong)tiles_per_group;
    *to = min(*from + tiles_per_group, tiles);
}

// Segment s is [offsets[s], offsets[s + 1]) of the values from `first` on; without offsets
// (`uniform` > 0) every segment has `uniform` values. The team of `width` work-items (a power of
// two that divides the work-group size) numbered t reduces chunk t % chunks of segment
// t / chunks and writes out[first_out + t]: a segment's chunks' partials lie side by side.
// Tile k holds teams k * (work-group size / width) on. Divisions of 64-bit values are left to
// split segments (chunks > 1): they cost a GPU tens of instructions each.
kernel void reduce_segments(global const input_t* in, ulong first, ulong index_base,
                            global const ulong* offsets, ulong uniform, ulong segments, uint width,
                            ulong chunks, ulong tiles, uint tiles_per_group, global accum_t* out,
                            ulong first_out, local accum_t* scratch) {
    const uint lid = get_local_id(0);
    const uint lane = lid % width;
    const uint teams_per_tile = get_local_size(0) / width;
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; ++tile) {
        const ulong team = tile * teams_per_tile + lid / width;
        const ulong segment = chunks == 1 ? team : team / chunks;
        accum_t value = identity();
        if (segment < segments) {
            const ulong begin = uniform ? segment * uniform : offsets[segment];
            const ulong length = (uniform ? (segment + 1) * uniform : offsets[segment + 1]) - begin;
            ulong from = 0, to = length;
            if (chunks > 1) {
                const ulong chunk = team - segment * chunks;
                from = chunk_begin(length, chunks, chunk);
                to = chunk_begin(length, chunks, chunk + 1);
            }
            value = fold_share(in, first + begin, 1, from + lane, to, width, index_base);
        }
        if (width > 1) { // the team's tree; every work-item reaches every barrier
            scratch[lid] = value;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint active = width / 2; active > 0; active /= 2) {
                if (lane < active)
                    scratch[lid] = op(scratch[lid], scratch[lid + active]);
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            value = scratch[lid];
        }
        if (lane == 0 && segment < segments)
            out[first_out + team] = value;
    }
}

#if !defined(REDUCE_INDEXING)
// The partial of one vector of a row: its n = REDUCE_VALUES_PER_LOAD values (vector v of the
// buffer) mapped, their index counted from the row's first value, in[row_first], as
// index_base, and reduced to one accumulator.
accum_t fold_vector(global const input_t* in, ulong v, ulong row_first, ulong index_base) {
    return REDUCE_COMBINE_LANES(op, accumulators_of(read4(in, v, row_first, index_base)));
}

#if defined(REDUCE_CONTIGUOUS)
// reduce_vector_rows for CPUs: each work-item reads its own row, any number of vectors,
// combining them as 4-vectors (fold4_t) and the lanes at the end. Read a value at a time,
// a row of 16 values spent more on its scalar loop than on its one cache line (on the 16-core
// PoCL, docs/axes.md). The same arguments; `scratch` unused.
kernel void reduce_vector_row_runs(global const input_t* in, ulong first, ulong index_base,
                                   global const ulong* offsets, ulong uniform, ulong segments,
                                   uint width, ulong chunks, ulong tiles, uint tiles_per_group,
                                   global accum_t* out, ulong first_out, local accum_t* scratch) {
    const ulong parts = uniform / REDUCE_VALUES_PER_LOAD;
    const ulong first_vector = first / REDUCE_VALUES_PER_LOAD;
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; ++tile) {
        const ulong row = tile * get_local_size(0) + get_local_id(0);
        if (row >= segments)
            continue;
        const ulong row_first = first + row * uniform;
        const ulong v = first_vector + row * parts;
        fold4_t lanes = read4(in, v, row_first, index_base);
        for (ulong p = 1; p < parts; ++p)
            lanes = fold_op4(lanes, read4(in, v + p, row_first, index_base));
        out[first_out + row] = REDUCE_COMBINE_LANES(op, accumulators_of(lanes));
    }
}
#endif

// reduce_segments for narrow uniform rows on GPUs (rows of `parts` vectors, a power of two
// that divides the work-group size, each at a multiple of n values: `first` and `uniform`
// multiples of n), a work-item a row, one chunk; the same arguments (`width` 1, `offsets`
// unread). A team reading a row a value per work-item read only 16 to 64 bytes of each row a
// load, on rows of 16 to 64 values; here a tile is get_local_size(0) rows, and work-item l
// reads the tile's vectors l, l + size, ...: every load of a warp reads neighbouring vectors,
// whole rows. So work-item l reads vector l % parts of rows l / parts, l / parts + size /
// parts, ...: its partials are of different rows, and meet the other parts' in local memory,
// where work-item l then reduces row l's. `scratch` holds two tiles' partials, used in turn:
// a work-item past the next tile's barrier knows that all have read the tile before, so one
// barrier a tile does.
kernel void reduce_vector_rows(global const input_t* in, ulong first, ulong index_base,
                               global const ulong* offsets, ulong uniform, ulong segments,
                               uint width, ulong chunks, ulong tiles, uint tiles_per_group,
                               global accum_t* out, ulong first_out, local accum_t* scratch) {
    const uint size = get_local_size(0);
    const uint lid = get_local_id(0);
    const uint parts = (uint)(uniform / REDUCE_VALUES_PER_LOAD);
    const uint part = lid % parts;
    const uint rows_a_load = size / parts; // rows the work-group's load of a vector each reads
    // A row's partials `pitch` apart, an odd number: the work-items of a warp reading each
    // its row's partials meet in no bank.
    const uint pitch = parts | 1;
    const ulong first_vector = first / REDUCE_VALUES_PER_LOAD;
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (uint turn = 0; tile < last; ++tile, turn ^= 1) {
        local accum_t* partials = scratch + turn * size * pitch;
        const ulong tile_row = tile * size;
        for (uint k = 0; k < parts; ++k) {
            const uint row = k * rows_a_load + lid / parts; // in the tile
            accum_t value = identity();
            if (tile_row + row < segments)
                value = fold_vector(in, first_vector + (tile_row + row) * parts + part,
                                    first + (tile_row + row) * uniform, index_base);
            partials[row * pitch + part] = value;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tile_row + lid < segments) {
            accum_t value = partials[lid * pitch];
            for (uint p = 1; p < parts; ++p)
                value = op(value, partials[lid * pitch + p]);
            out[first_out + tile_row + lid] = value;
        }
    }
}
#endif

// Block o holds `rows` rows of `columns` values: value r of column k is at
// first + (o * rows + r) * columns + k. A tile covers `width` neighbouring columns (all of them
// where there are fewer than the work-group's work-items) and reads get_local_size(0) / width
// rows at a time; tile g takes chunk g % chunks of the rows of column tile g / chunks %
// column_tiles of block g / chunks / column_tiles. The partial of column k of block o, chunk c,
// goes to out[first_out + (o * columns + k) * chunks + c]: a column's chunks side by side, as
// rows for a second launch of reduce_segments.
kernel void reduce_columns(global const input_t* in, ulong first, ulong index_base, ulong rows,
                           ulong columns, uint width, ulong chunks, ulong tiles,
                           uint tiles_per_group, global accum_t* out, ulong first_out,
                           local accum_t* scratch) {
    const uint lid = get_local_id(0);
    const uint phases = get_local_size(0) / width; // rows read at a time
    const uint phase = lid / width;
    const ulong column_tiles = columns / width + (columns % width != 0);
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; ++tile) {
        const ulong group = chunks == 1 ? tile : tile / chunks;
        const ulong block = group < column_tiles ? 0 : group / column_tiles;
        const ulong column = (group - block * column_tiles) * width + lid % width;
        ulong from = phase, to = rows, chunk = 0;
        if (chunks > 1) {
            chunk = tile - group * chunks;
            from += chunk_begin(rows, chunks, chunk);
            to = chunk_begin(rows, chunks, chunk + 1);
        }
        accum_t value = identity();
        if (phase < phases && column < columns) // a width that does not divide leaves some idle
            value = fold_share(in, first + block * rows * columns + column, columns, from, to,
                               phases, index_base);
        if (phases > 1) { // the phases of one column meet in local memory
            scratch[lid] = value;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (phase == 0)
                for (uint p = 1; p < phases; ++p)
                    value = op(value, scratch[p * width + lid]);
            barrier(CLK_LOCAL_MEM_FENCE); // read before the next tile writes
        }
        if (phase == 0 && column < columns)
            out[first_out + (block * columns + column) * chunks + chunk] = value;
    }
}

// reduce_segments for uniform rows (no offsets) of a work-item each, whole (width 1, one chunk),
// SEGMENT_BATCH tiles at once; the same arguments. A kernel of its own: its registers are not
// the other kernels' (inside reduce_segments, its arrays cost every launch about 3% on the H100).
kernel void reduce_segments_batched(global const input_t* in, ulong first, ulong index_base,
                                    global const ulong* offsets, ulong uniform, ulong segments,
                                    uint width, ulong chunks, ulong tiles, uint tiles_per_group,
                                    global accum_t* out, ulong first_out, local accum_t* scratch) {
    const ulong rows_per_tile = get_local_size(0);
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; tile += SEGMENT_BATCH) {
        const uint count = (uint)min((ulong)SEGMENT_BATCH, last - tile);
        ulong segment[SEGMENT_BATCH], base[SEGMENT_BATCH];
#pragma unroll
        for (uint b = 0; b < SEGMENT_BATCH; ++b) { // a past-the-end row reads the last one
            segment[b] = (tile + b) * rows_per_tile + get_local_id(0);
            base[b] = first + min(segment[b], segments - 1) * uniform;
        }
        accum_t value[SEGMENT_BATCH];
        fold_batch(in, base, count, 1, uniform, index_base, value);
#pragma unroll
        for (uint b = 0; b < SEGMENT_BATCH; ++b)
            if (b < count && segment[b] < segments)
                out[first_out + segment[b]] = value[b];
    }
}

// reduce_columns for a column of a work-item each, whole (one phase, one chunk), SEGMENT_BATCH
// tiles at once; the same arguments.
kernel void reduce_columns_batched(global const input_t* in, ulong first, ulong index_base,
                                   ulong rows, ulong columns, uint width, ulong chunks, ulong tiles,
                                   uint tiles_per_group, global accum_t* out, ulong first_out,
                                   local accum_t* scratch) {
    const ulong column_tiles = columns / width + (columns % width != 0);
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; tile += SEGMENT_BATCH) {
        const uint count = (uint)min((ulong)SEGMENT_BATCH, last - tile);
        ulong base[SEGMENT_BATCH], result[SEGMENT_BATCH];
        bool inside[SEGMENT_BATCH]; // a width that does not divide leaves some idle
#pragma unroll
        for (uint b = 0; b < SEGMENT_BATCH; ++b) {
            const ulong group = tile + b;
            const ulong block = group < column_tiles ? 0 : group / column_tiles;
            const ulong column = (group - block * column_tiles) * width + get_local_id(0);
            inside[b] = column < columns;
            result[b] = block * columns + column;
            base[b] = first + block * rows * columns + min(column, columns - 1);
        }
        accum_t value[SEGMENT_BATCH];
        fold_batch(in, base, count, columns, rows, index_base, value);
#pragma unroll
        for (uint b = 0; b < SEGMENT_BATCH; ++b)
            if (b < count && inside[b])
                out[first_out + result[b]] = value[b];
    }
}

// The columns a work-item of reduce_column_strips owns (SegmentPass::strip, segment_plan.cpp).
#define SEGMENT_STRIP 4

// The SEGMENT_STRIP values from in[at] on: one vector load where a load reads as many values
// and `vectors` says they are aligned (4- and 8-byte values, partials), else one at a time.
value4_t load_strip(global const input_t* in, ulong at, bool vectors) {
#if REDUCE_VALUES_PER_LOAD == SEGMENT_STRIP
    if (vectors)
        return loadn(in, at / SEGMENT_STRIP);
#endif
    value4_t x;
    x.x = load(in, at);
    x.y = load(in, at + 1);
    x.z = load(in, at + 2);
    x.w = load(in, at + 3);
    return x;
}

// A row's strip `x`, whose index along the axis is i, mapped into the strip's accumulators.
void fold_strip_row(value4_t x, ulong i, accum_t* value) {
    value[0] = op(value[0], map(x.x, i));
    value[1] = op(value[1], map(x.y, i));
    value[2] = op(value[2], map(x.z, i));
    value[3] = op(value[3], map(x.w, i));
}

// Rows [0, rows) of the strip from in[base] on, a row `columns` values below the one before,
// reduced into value[0 ... SEGMENT_STRIP - 1]. The loads of four rows (two at the end) are
// issued before any is folded: with few rows, the loads in flight are what keeps the memory
// busy.
void fold_strip(global const input_t* in, ulong base, ulong columns, ulong rows, ulong index_base,
                bool vectors, accum_t* value) {
#pragma unroll
    for (uint k = 0; k < SEGMENT_STRIP; ++k)
        value[k] = identity();
    ulong r = 0;
    for (; r + 3 < rows; r += 4) {
        value4_t x[4];
#pragma unroll
        for (uint k = 0; k < 4; ++k)
            x[k] = load_strip(in, base + (r + k) * columns, vectors);
#pragma unroll
        for (uint k = 0; k < 4; ++k)
            fold_strip_row(x[k], index_base + r + k, value);
    }
    if (r + 1 < rows) {
        const value4_t x0 = load_strip(in, base + r * columns, vectors);
        const value4_t x1 = load_strip(in, base + (r + 1) * columns, vectors);
        fold_strip_row(x0, index_base + r, value);
        fold_strip_row(x1, index_base + r + 1, value);
        r += 2;
    }
    if (r < rows)
        fold_strip_row(load_strip(in, base + r * columns, vectors), index_base + r, value);
}

// reduce_columns for few rows of many columns, whole (one phase, one chunk): the work-item
// numbered t of tile g owns columns SEGMENT_STRIP * t ... of the tile's `width` (a multiple of
// SEGMENT_STRIP, as `columns` is) and writes their results at once, one vector store where
// they are aligned. The same arguments as reduce_columns.
kernel void reduce_column_strips(global const input_t* in, ulong first, ulong index_base,
                                 ulong rows, ulong columns, uint width, ulong chunks, ulong tiles,
                                 uint tiles_per_group, global accum_t* out, ulong first_out,
                                 local accum_t* scratch) {
    const ulong column_tiles = columns / width + (columns % width != 0);
    // The same for every work-item: one branch taken by all.
    const bool vectors = first % SEGMENT_STRIP == 0;
    const bool vector_store = first_out % SEGMENT_STRIP == 0;
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; ++tile) {
        const ulong block = tile < column_tiles ? 0 : tile / column_tiles;
        const ulong column =
            (tile - block * column_tiles) * width + SEGMENT_STRIP * (ulong)get_local_id(0);
        if (column >= columns) // the last tile of a block may be part full
            continue;
        accum_t value[SEGMENT_STRIP];
        fold_strip(in, first + block * rows * columns + column, columns, rows, index_base, vectors,
                   value);
        const ulong at = first_out + block * columns + column;
        if (vector_store) {
            accum4_t results; // a vector, or four pairs for argmin and argmax
            results.x = value[0];
            results.y = value[1];
            results.z = value[2];
            results.w = value[3];
            *(global accum4_t*)(out + at) = results;
        } else {
#pragma unroll
            for (uint k = 0; k < SEGMENT_STRIP; ++k)
                out[at + k] = value[k];
        }
    }
}

#if defined(REDUCE_CONTIGUOUS)
// Value k of a row, mapped as the row's index `index`.
accum_t mapped(global const input_t* row, ulong k, ulong index) {
    return map(load(row, k), index);
}

// Column k of two rows of a strip, `apart` rows apart, the first at `row`, whose index along the
// axis is `index`: mapped and combined.
accum_t two_rows(global const input_t* row, ulong k, ulong index, ulong columns, ulong apart) {
    return op(mapped(row, k, index), mapped(row + apart * columns, k, index + apart));
}

// The widest strip, in bytes a row, whose chunk reduce_column_runs reads as eight parts at once.
#define NARROW_STRIP_BYTES 4096

// The first 8 * `part` rows of a chunk from row `from` on, columns [0, count) from in[base] on,
// reduced into result[0, count), read as eight parts of `part` rows at once, a row of each a
// turn, which meet in registers before they update the results. Neighbouring rows of a narrow
// strip are one stream for the core's prefetcher, eight parts are eight streams side by side.
void fold_eight_parts(global const input_t* in, ulong base, ulong columns, ulong count, ulong from,
                      ulong part, ulong index_base, global accum_t* result) {
    const ulong step = 2 * part * columns; // from a pair of parts to the next
    for (ulong r = from; r < from + part; ++r) {
        global const input_t* row = in + base + r * columns;
        const ulong index = index_base + r;
        for (ulong k = 0; k < count; ++k) {
            const accum_t first_four = op(two_rows(row, k, index, columns, part),
                                          two_rows(row + step, k, index + 2 * part, columns, part));
            const accum_t last_four =
                op(two_rows(row + 2 * step, k, index + 4 * part, columns, part),
                   two_rows(row + 3 * step, k, index + 6 * part, columns, part));
            result[k] = op(result[k], op(first_four, last_four));
        }
    }
}

// reduce_columns for CPUs, whose driver runs a work-group's work-items one after another on
// one core: a work-item per column would stride through memory a row at a time. Here work-item
// t of the launch reduces a strip of `width` neighbouring columns over one chunk of the rows:
// strip t % strips (strips = columns / width, rounded up) of chunk t / strips % chunks of block
// t / strips / chunks. Each row's strip is one contiguous run, which the compiler vectorises,
// reduced into the strip's results where they go, which stay in the core's cache:
// out[first_out + (block * chunks + chunk) * columns + k] for column k, a row of partials per
// chunk, which a second launch reduces as columns. A strip of up to NARROW_STRIP_BYTES a row
// reads its chunk as eight parts at once (fold_eight_parts(); on the 16-core PoCL columns of 2
// to 512 took 0.58 to 0.85 times as long as four neighbouring rows a turn, docs/axes.md). Wider
// strips' rows are a page apart already, and in eight parts they were slower (1.25 to 1.39
// times as long at 4096 and 8192 columns: likely the eight rows of a turn, a multiple of 4 KiB
// apart, in the same sets of the core's cache); they, and the rows the parts leave, go four
// neighbouring rows a turn. The same arguments as reduce_columns, and `blocks`; no local
// memory.
kernel void reduce_column_runs(global const input_t* in, ulong first, ulong index_base, ulong rows,
                               ulong columns, ulong blocks, uint width, ulong chunks, ulong tiles,
                               uint tiles_per_group, global accum_t* out, ulong first_out) {
    const ulong strips = columns / width + (columns % width != 0);
    ulong tile, last;
    group_tiles(tiles, tiles_per_group, &tile, &last);
    for (; tile < last; ++tile) {
        const ulong task = tile * get_local_size(0) + get_local_id(0);
        const ulong strip = task % strips;
        const ulong chunk = task / strips % chunks;
        const ulong block = task / strips / chunks;
        if (block >= blocks)
            continue;
        const ulong column = strip * width;
        const ulong count = min((ulong)width, columns - column);
        const ulong base = first + block * rows * columns + column;
        global accum_t* result = out + first_out + (block * chunks + chunk) * columns + column;
        for (ulong k = 0; k < count; ++k)
            result[k] = identity();
        const ulong to = chunk_begin(rows, chunks, chunk + 1);
        ulong r = chunk_begin(rows, chunks, chunk);
        if (count * sizeof(input_t) <= NARROW_STRIP_BYTES) {
            const ulong part = (to - r) / 8;
            fold_eight_parts(in, base, columns, count, r, part, index_base, result);
            r += 8 * part;
        }
        for (; r + 3 < to; r += 4) {
            global const input_t* row = in + base + r * columns;
            const ulong index = index_base + r;
            for (ulong k = 0; k < count; ++k)
                result[k] =
                    op(result[k], op(two_rows(row, k, index, columns, 1),
                                     two_rows(row + 2 * columns, k, index + 2, columns, 1)));
        }
        for (; r < to; ++r)
            for (ulong k = 0; k < count; ++k)
                result[k] = op(result[k], mapped(in + base + r * columns, k, index_base + r));
    }
}
#endif
