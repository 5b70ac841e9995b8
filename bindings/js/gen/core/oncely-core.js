export function instantiate(getCoreModule, imports, instantiateCore = (module, importObject) => new WebAssembly.Instance(module, importObject)) {
  
  class ComponentError extends Error {
    constructor (value) {
      const enumerable = typeof value !== 'string';
      super(enumerable ? `${String(value)} (see error.payload)` : value);
      Object.defineProperty(this, 'payload', { value, enumerable });
    }
  }
  
  let dv = new DataView(new ArrayBuffer());
  const dataView = mem => dv.buffer === mem.buffer ? dv : dv = new DataView(mem.buffer);
  
  function throwInvalidBool() {
    throw new TypeError('invalid variant discriminant for bool');
  }
  
  const toUint64 = val => BigInt.asUintN(64, BigInt(val));
  
  function toUint32(val) {
    return val >>> 0;
  }
  
  const utf8Decoder = new TextDecoder();
  
  const utf8Encoder = new TextEncoder();
  
  let utf8EncodedLen = 0;
  function utf8Encode(s, realloc, memory) {
    if (typeof s !== 'string') throw new TypeError('expected a string');
    if (s.length === 0) {
      utf8EncodedLen = 0;
      return 1;
    }
    let buf = utf8Encoder.encode(s);
    let ptr = realloc(0, 0, 1, buf.length);
    new Uint8Array(memory.buffer).set(buf, ptr);
    utf8EncodedLen = buf.length;
    return ptr;
  }
  
  
  const module0 = getCoreModule('oncely-core.core.wasm');
  
  let gen = (function* init () {
    let exports0;
    let memory0;
    let realloc0;
    let postReturn0;
    let postReturn1;
    let postReturn2;
    let postReturn3;
    let postReturn4;
    let postReturn5;
    let postReturn6;
    let postReturn7;
    let postReturn8;
    let postReturn9;
    let postReturn10;
    let postReturn11;
    ({ exports: exports0 } = instantiateCore(module0));
    memory0 = exports0.memory;
    realloc0 = exports0.cabi_realloc;
    postReturn0 = exports0['cabi_post_oncely:core/canonical@0.1.0#canonicalize'];
    postReturn1 = exports0['cabi_post_oncely:core/keys@0.1.0#derive'];
    postReturn2 = exports0['cabi_post_oncely:core/keys@0.1.0#key'];
    postReturn3 = exports0['cabi_post_oncely:core/keys@0.1.0#derive-many'];
    postReturn4 = exports0['cabi_post_oncely:core/keys@0.1.0#default-spec'];
    postReturn5 = exports0['cabi_post_oncely:core/keys@0.1.0#explain'];
    postReturn6 = exports0['cabi_post_oncely:core/policy@0.1.0#default-policy'];
    postReturn7 = exports0['cabi_post_oncely:core/policy@0.1.0#parse-policy'];
    postReturn8 = exports0['cabi_post_oncely:core/policy@0.1.0#resolve-tool'];
    postReturn9 = exports0['cabi_post_oncely:core/policy@0.1.0#check-manifest'];
    postReturn10 = exports0['cabi_post_oncely:core/ledger@0.1.0#prepare'];
    postReturn11 = exports0['cabi_post_oncely:core/effect@0.1.0#run'];
    let canonical010MaxInputBytes;
    
    function maxInputBytes() {
      const ret = canonical010MaxInputBytes();
      return BigInt.asUintN(64, ret);
    }
    let canonical010MaxDepth;
    
    function maxDepth() {
      const ret = canonical010MaxDepth();
      return ret >>> 0;
    }
    let canonical010Canonicalize;
    
    function canonicalize(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = canonical010Canonicalize(ptr0, len0);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant4= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          let enum2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum2 = 'syntax';
              break;
            }
            case 1: {
              enum2 = 'invalid-utf8';
              break;
            }
            case 2: {
              enum2 = 'lone-surrogate';
              break;
            }
            case 3: {
              enum2 = 'duplicate-key';
              break;
            }
            case 4: {
              enum2 = 'number-overflow';
              break;
            }
            case 5: {
              enum2 = 'inexact-integer';
              break;
            }
            case 6: {
              enum2 = 'too-deep';
              break;
            }
            case 7: {
              enum2 = 'too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CanonErrorKind');
            }
          }
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              kind: enum2,
              offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
              line: dataView(memory0).getInt32(ret + 24, true) >>> 0,
              column: dataView(memory0).getInt32(ret + 28, true) >>> 0,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn0(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let canonical010CanonicalizeBytes;
    
    function canonicalizeBytes(arg0) {
      var val0 = arg0;
      var len0 = val0.byteLength;
      var ptr0 = realloc0(0, 0, 1, len0 * 1);
      var src0 = new Uint8Array(val0.buffer || val0, val0.byteOffset, len0 * 1);
      (new Uint8Array(memory0.buffer, ptr0, len0 * 1)).set(src0);
      const ret = canonical010CanonicalizeBytes(ptr0, len0);
      let variant4;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant4= {
            tag: 'ok',
            val: result1
          };
          break;
        }
        case 1: {
          let enum2;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum2 = 'syntax';
              break;
            }
            case 1: {
              enum2 = 'invalid-utf8';
              break;
            }
            case 2: {
              enum2 = 'lone-surrogate';
              break;
            }
            case 3: {
              enum2 = 'duplicate-key';
              break;
            }
            case 4: {
              enum2 = 'number-overflow';
              break;
            }
            case 5: {
              enum2 = 'inexact-integer';
              break;
            }
            case 6: {
              enum2 = 'too-deep';
              break;
            }
            case 7: {
              enum2 = 'too-large';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for CanonErrorKind');
            }
          }
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4= {
            tag: 'err',
            val: {
              kind: enum2,
              offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 16, true)),
              line: dataView(memory0).getInt32(ret + 24, true) >>> 0,
              column: dataView(memory0).getInt32(ret + 28, true) >>> 0,
              message: result3,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant4;
      postReturn0(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010Derive;
    
    function derive(arg0, arg1) {
      var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var ptr3 = utf8Encode(v0_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      var ptr4 = utf8Encode(v0_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      var ptr5 = utf8Encode(v0_4, realloc0, memory0);
      var len5 = utf8EncodedLen;
      var {only: v6_0, ignore: v6_1, identity: v6_2 } = arg1;
      var variant9 = v6_0;
      let variant9_0;
      let variant9_1;
      let variant9_2;
      if (variant9 === null || variant9=== undefined) {
        variant9_0 = 0;
        variant9_1 = 0;
        variant9_2 = 0;
      } else {
        const e = variant9;
        var vec8 = e;
        var len8 = vec8.length;
        var result8 = realloc0(0, 0, 4, len8 * 8);
        for (let i = 0; i < vec8.length; i++) {
          const e = vec8[i];
          const base = result8 + i * 8;var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len7, true);
          dataView(memory0).setInt32(base + 0, ptr7, true);
        }
        variant9_0 = 1;
        variant9_1 = result8;
        variant9_2 = len8;
      }
      var vec11 = v6_1;
      var len11 = vec11.length;
      var result11 = realloc0(0, 0, 4, len11 * 8);
      for (let i = 0; i < vec11.length; i++) {
        const e = vec11[i];
        const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len10, true);
        dataView(memory0).setInt32(base + 0, ptr10, true);
      }
      var val12 = v6_2;
      let enum12;
      switch (val12) {
        case 'step': {
          enum12 = 0;
          break;
        }
        case 'run': {
          enum12 = 1;
          break;
        }
        case 'scope': {
          enum12 = 2;
          break;
        }
        default: {
          if ((v6_2) instanceof Error) {
            console.error(v6_2);
          }
          
          throw new TypeError(`"${val12}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010Derive(ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, ptr5, len5, variant9_0, variant9_1, variant9_2, result11, len11, enum12);
      let variant24;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 16, true);
          var len14 = dataView(memory0).getInt32(ret + 20, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          var ptr15 = dataView(memory0).getInt32(ret + 24, true);
          var len15 = dataView(memory0).getInt32(ret + 28, true);
          var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
          var ptr16 = dataView(memory0).getInt32(ret + 32, true);
          var len16 = dataView(memory0).getInt32(ret + 36, true);
          var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
          variant24= {
            tag: 'ok',
            val: {
              key: result13,
              preimage: result14,
              fingerprint: result15,
              argsCanonical: result16,
            }
          };
          break;
        }
        case 1: {
          let enum17;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum17 = 'invalid-args';
              break;
            }
            case 1: {
              enum17 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum17 = 'missing-member';
              break;
            }
            case 3: {
              enum17 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum17 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant19;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant19 = undefined;
              break;
            }
            case 1: {
              var ptr18 = dataView(memory0).getInt32(ret + 16, true);
              var len18 = dataView(memory0).getInt32(ret + 20, true);
              var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
              variant19 = result18;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant22;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant22 = undefined;
              break;
            }
            case 1: {
              let enum20;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum20 = 'syntax';
                  break;
                }
                case 1: {
                  enum20 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum20 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum20 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum20 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum20 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum20 = 'too-deep';
                  break;
                }
                case 7: {
                  enum20 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr21 = dataView(memory0).getInt32(ret + 56, true);
              var len21 = dataView(memory0).getInt32(ret + 60, true);
              var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
              variant22 = {
                kind: enum20,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result21,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr23 = dataView(memory0).getInt32(ret + 64, true);
          var len23 = dataView(memory0).getInt32(ret + 68, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          variant24= {
            tag: 'err',
            val: {
              kind: enum17,
              at: variant19,
              canon: variant22,
              message: result23,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant24;
      postReturn1(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010Key;
    
    function key(arg0, arg1) {
      var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      var ptr3 = utf8Encode(v0_2, realloc0, memory0);
      var len3 = utf8EncodedLen;
      var ptr4 = utf8Encode(v0_3, realloc0, memory0);
      var len4 = utf8EncodedLen;
      var ptr5 = utf8Encode(v0_4, realloc0, memory0);
      var len5 = utf8EncodedLen;
      var {only: v6_0, ignore: v6_1, identity: v6_2 } = arg1;
      var variant9 = v6_0;
      let variant9_0;
      let variant9_1;
      let variant9_2;
      if (variant9 === null || variant9=== undefined) {
        variant9_0 = 0;
        variant9_1 = 0;
        variant9_2 = 0;
      } else {
        const e = variant9;
        var vec8 = e;
        var len8 = vec8.length;
        var result8 = realloc0(0, 0, 4, len8 * 8);
        for (let i = 0; i < vec8.length; i++) {
          const e = vec8[i];
          const base = result8 + i * 8;var ptr7 = utf8Encode(e, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len7, true);
          dataView(memory0).setInt32(base + 0, ptr7, true);
        }
        variant9_0 = 1;
        variant9_1 = result8;
        variant9_2 = len8;
      }
      var vec11 = v6_1;
      var len11 = vec11.length;
      var result11 = realloc0(0, 0, 4, len11 * 8);
      for (let i = 0; i < vec11.length; i++) {
        const e = vec11[i];
        const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len10, true);
        dataView(memory0).setInt32(base + 0, ptr10, true);
      }
      var val12 = v6_2;
      let enum12;
      switch (val12) {
        case 'step': {
          enum12 = 0;
          break;
        }
        case 'run': {
          enum12 = 1;
          break;
        }
        case 'scope': {
          enum12 = 2;
          break;
        }
        default: {
          if ((v6_2) instanceof Error) {
            console.error(v6_2);
          }
          
          throw new TypeError(`"${val12}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010Key(ptr1, len1, ptr2, len2, ptr3, len3, ptr4, len4, ptr5, len5, variant9_0, variant9_1, variant9_2, result11, len11, enum12);
      let variant21;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          variant21= {
            tag: 'ok',
            val: result13
          };
          break;
        }
        case 1: {
          let enum14;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum14 = 'invalid-args';
              break;
            }
            case 1: {
              enum14 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum14 = 'missing-member';
              break;
            }
            case 3: {
              enum14 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum14 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant16;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant16 = undefined;
              break;
            }
            case 1: {
              var ptr15 = dataView(memory0).getInt32(ret + 16, true);
              var len15 = dataView(memory0).getInt32(ret + 20, true);
              var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
              variant16 = result15;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant19;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant19 = undefined;
              break;
            }
            case 1: {
              let enum17;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum17 = 'syntax';
                  break;
                }
                case 1: {
                  enum17 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum17 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum17 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum17 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum17 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum17 = 'too-deep';
                  break;
                }
                case 7: {
                  enum17 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr18 = dataView(memory0).getInt32(ret + 56, true);
              var len18 = dataView(memory0).getInt32(ret + 60, true);
              var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
              variant19 = {
                kind: enum17,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result18,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr20 = dataView(memory0).getInt32(ret + 64, true);
          var len20 = dataView(memory0).getInt32(ret + 68, true);
          var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
          variant21= {
            tag: 'err',
            val: {
              kind: enum14,
              at: variant16,
              canon: variant19,
              message: result20,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant21;
      postReturn2(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let keys010DeriveMany;
    
    function deriveMany(arg0, arg1) {
      var vec6 = arg0;
      var len6 = vec6.length;
      var result6 = realloc0(0, 0, 4, len6 * 40);
      for (let i = 0; i < vec6.length; i++) {
        const e = vec6[i];
        const base = result6 + i * 40;var {scope: v0_0, runId: v0_1, stepId: v0_2, tool: v0_3, argsJson: v0_4 } = e;
        var ptr1 = utf8Encode(v0_0, realloc0, memory0);
        var len1 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len1, true);
        dataView(memory0).setInt32(base + 0, ptr1, true);
        var ptr2 = utf8Encode(v0_1, realloc0, memory0);
        var len2 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 12, len2, true);
        dataView(memory0).setInt32(base + 8, ptr2, true);
        var ptr3 = utf8Encode(v0_2, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 20, len3, true);
        dataView(memory0).setInt32(base + 16, ptr3, true);
        var ptr4 = utf8Encode(v0_3, realloc0, memory0);
        var len4 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 28, len4, true);
        dataView(memory0).setInt32(base + 24, ptr4, true);
        var ptr5 = utf8Encode(v0_4, realloc0, memory0);
        var len5 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 36, len5, true);
        dataView(memory0).setInt32(base + 32, ptr5, true);
      }
      var {only: v7_0, ignore: v7_1, identity: v7_2 } = arg1;
      var variant10 = v7_0;
      let variant10_0;
      let variant10_1;
      let variant10_2;
      if (variant10 === null || variant10=== undefined) {
        variant10_0 = 0;
        variant10_1 = 0;
        variant10_2 = 0;
      } else {
        const e = variant10;
        var vec9 = e;
        var len9 = vec9.length;
        var result9 = realloc0(0, 0, 4, len9 * 8);
        for (let i = 0; i < vec9.length; i++) {
          const e = vec9[i];
          const base = result9 + i * 8;var ptr8 = utf8Encode(e, realloc0, memory0);
          var len8 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len8, true);
          dataView(memory0).setInt32(base + 0, ptr8, true);
        }
        variant10_0 = 1;
        variant10_1 = result9;
        variant10_2 = len9;
      }
      var vec12 = v7_1;
      var len12 = vec12.length;
      var result12 = realloc0(0, 0, 4, len12 * 8);
      for (let i = 0; i < vec12.length; i++) {
        const e = vec12[i];
        const base = result12 + i * 8;var ptr11 = utf8Encode(e, realloc0, memory0);
        var len11 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len11, true);
        dataView(memory0).setInt32(base + 0, ptr11, true);
      }
      var val13 = v7_2;
      let enum13;
      switch (val13) {
        case 'step': {
          enum13 = 0;
          break;
        }
        case 'run': {
          enum13 = 1;
          break;
        }
        case 'scope': {
          enum13 = 2;
          break;
        }
        default: {
          if ((v7_2) instanceof Error) {
            console.error(v7_2);
          }
          
          throw new TypeError(`"${val13}" is not one of the cases of key-identity`);
        }
      }
      const ret = keys010DeriveMany(result6, len6, variant10_0, variant10_1, variant10_2, result12, len12, enum13);
      var len26 = dataView(memory0).getInt32(ret + 4, true);
      var base26 = dataView(memory0).getInt32(ret + 0, true);
      var result26 = [];
      for (let i = 0; i < len26; i++) {
        const base = base26 + i * 72;
        let variant25;
        switch (dataView(memory0).getUint8(base + 0, true)) {
          case 0: {
            var ptr14 = dataView(memory0).getInt32(base + 8, true);
            var len14 = dataView(memory0).getInt32(base + 12, true);
            var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
            var ptr15 = dataView(memory0).getInt32(base + 16, true);
            var len15 = dataView(memory0).getInt32(base + 20, true);
            var result15 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr15, len15));
            var ptr16 = dataView(memory0).getInt32(base + 24, true);
            var len16 = dataView(memory0).getInt32(base + 28, true);
            var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
            var ptr17 = dataView(memory0).getInt32(base + 32, true);
            var len17 = dataView(memory0).getInt32(base + 36, true);
            var result17 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr17, len17));
            variant25= {
              tag: 'ok',
              val: {
                key: result14,
                preimage: result15,
                fingerprint: result16,
                argsCanonical: result17,
              }
            };
            break;
          }
          case 1: {
            let enum18;
            switch (dataView(memory0).getUint8(base + 8, true)) {
              case 0: {
                enum18 = 'invalid-args';
                break;
              }
              case 1: {
                enum18 = 'invalid-pointer';
                break;
              }
              case 2: {
                enum18 = 'missing-member';
                break;
              }
              case 3: {
                enum18 = 'pointer-into-array';
                break;
              }
              case 4: {
                enum18 = 'empty-field';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for KeyErrorKind');
              }
            }
            let variant20;
            switch (dataView(memory0).getUint8(base + 12, true)) {
              case 0: {
                variant20 = undefined;
                break;
              }
              case 1: {
                var ptr19 = dataView(memory0).getInt32(base + 16, true);
                var len19 = dataView(memory0).getInt32(base + 20, true);
                var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
                variant20 = result19;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant23;
            switch (dataView(memory0).getUint8(base + 24, true)) {
              case 0: {
                variant23 = undefined;
                break;
              }
              case 1: {
                let enum21;
                switch (dataView(memory0).getUint8(base + 32, true)) {
                  case 0: {
                    enum21 = 'syntax';
                    break;
                  }
                  case 1: {
                    enum21 = 'invalid-utf8';
                    break;
                  }
                  case 2: {
                    enum21 = 'lone-surrogate';
                    break;
                  }
                  case 3: {
                    enum21 = 'duplicate-key';
                    break;
                  }
                  case 4: {
                    enum21 = 'number-overflow';
                    break;
                  }
                  case 5: {
                    enum21 = 'inexact-integer';
                    break;
                  }
                  case 6: {
                    enum21 = 'too-deep';
                    break;
                  }
                  case 7: {
                    enum21 = 'too-large';
                    break;
                  }
                  default: {
                    throw new TypeError('invalid discriminant specified for CanonErrorKind');
                  }
                }
                var ptr22 = dataView(memory0).getInt32(base + 56, true);
                var len22 = dataView(memory0).getInt32(base + 60, true);
                var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
                variant23 = {
                  kind: enum21,
                  offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 40, true)),
                  line: dataView(memory0).getInt32(base + 48, true) >>> 0,
                  column: dataView(memory0).getInt32(base + 52, true) >>> 0,
                  message: result22,
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr24 = dataView(memory0).getInt32(base + 64, true);
            var len24 = dataView(memory0).getInt32(base + 68, true);
            var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
            variant25= {
              tag: 'err',
              val: {
                kind: enum18,
                at: variant20,
                canon: variant23,
                message: result24,
              }
            };
            break;
          }
          default: {
            throw new TypeError('invalid variant discriminant for expected');
          }
        }
        result26.push(variant25);
      }
      const retVal = result26;
      postReturn3(ret);
      return retVal;
    }
    let keys010DefaultSpec;
    
    function defaultSpec() {
      const ret = keys010DefaultSpec();
      let variant2;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant2 = undefined;
          break;
        }
        case 1: {
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var base1 = dataView(memory0).getInt32(ret + 4, true);
          var result1 = [];
          for (let i = 0; i < len1; i++) {
            const base = base1 + i * 8;
            var ptr0 = dataView(memory0).getInt32(base + 0, true);
            var len0 = dataView(memory0).getInt32(base + 4, true);
            var result0 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr0, len0));
            result1.push(result0);
          }
          variant2 = result1;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      var len4 = dataView(memory0).getInt32(ret + 16, true);
      var base4 = dataView(memory0).getInt32(ret + 12, true);
      var result4 = [];
      for (let i = 0; i < len4; i++) {
        const base = base4 + i * 8;
        var ptr3 = dataView(memory0).getInt32(base + 0, true);
        var len3 = dataView(memory0).getInt32(base + 4, true);
        var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
        result4.push(result3);
      }
      let enum5;
      switch (dataView(memory0).getUint8(ret + 20, true)) {
        case 0: {
          enum5 = 'step';
          break;
        }
        case 1: {
          enum5 = 'run';
          break;
        }
        case 2: {
          enum5 = 'scope';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for KeyIdentity');
        }
      }
      const retVal = {
        only: variant2,
        ignore: result4,
        identity: enum5,
      };
      postReturn4(ret);
      return retVal;
    }
    let keys010Explain;
    
    function explain(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 4, 104);
      var {scope: v1_0, runId: v1_1, stepId: v1_2, tool: v1_3, argsJson: v1_4 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var {scope: v7_0, runId: v7_1, stepId: v7_2, tool: v7_3, argsJson: v7_4 } = arg1;
      var ptr8 = utf8Encode(v7_0, realloc0, memory0);
      var len8 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 44, len8, true);
      dataView(memory0).setInt32(ptr0 + 40, ptr8, true);
      var ptr9 = utf8Encode(v7_1, realloc0, memory0);
      var len9 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 52, len9, true);
      dataView(memory0).setInt32(ptr0 + 48, ptr9, true);
      var ptr10 = utf8Encode(v7_2, realloc0, memory0);
      var len10 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 60, len10, true);
      dataView(memory0).setInt32(ptr0 + 56, ptr10, true);
      var ptr11 = utf8Encode(v7_3, realloc0, memory0);
      var len11 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 68, len11, true);
      dataView(memory0).setInt32(ptr0 + 64, ptr11, true);
      var ptr12 = utf8Encode(v7_4, realloc0, memory0);
      var len12 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 76, len12, true);
      dataView(memory0).setInt32(ptr0 + 72, ptr12, true);
      var {only: v13_0, ignore: v13_1, identity: v13_2 } = arg2;
      var variant16 = v13_0;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var vec15 = e;
        var len15 = vec15.length;
        var result15 = realloc0(0, 0, 4, len15 * 8);
        for (let i = 0; i < vec15.length; i++) {
          const e = vec15[i];
          const base = result15 + i * 8;var ptr14 = utf8Encode(e, realloc0, memory0);
          var len14 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len14, true);
          dataView(memory0).setInt32(base + 0, ptr14, true);
        }
        dataView(memory0).setInt32(ptr0 + 88, len15, true);
        dataView(memory0).setInt32(ptr0 + 84, result15, true);
      }
      var vec18 = v13_1;
      var len18 = vec18.length;
      var result18 = realloc0(0, 0, 4, len18 * 8);
      for (let i = 0; i < vec18.length; i++) {
        const e = vec18[i];
        const base = result18 + i * 8;var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len17, true);
        dataView(memory0).setInt32(base + 0, ptr17, true);
      }
      dataView(memory0).setInt32(ptr0 + 96, len18, true);
      dataView(memory0).setInt32(ptr0 + 92, result18, true);
      var val19 = v13_2;
      let enum19;
      switch (val19) {
        case 'step': {
          enum19 = 0;
          break;
        }
        case 'run': {
          enum19 = 1;
          break;
        }
        case 'scope': {
          enum19 = 2;
          break;
        }
        default: {
          if ((v13_2) instanceof Error) {
            console.error(v13_2);
          }
          
          throw new TypeError(`"${val19}" is not one of the cases of key-identity`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 100, enum19, true);
      const ret = keys010Explain(ptr0);
      let variant45;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum20;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum20 = 'same-intent';
              break;
            }
            case 1: {
              enum20 = 'conflict';
              break;
            }
            case 2: {
              enum20 = 'different-keys';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for Verdict');
            }
          }
          var ptr21 = dataView(memory0).getInt32(ret + 12, true);
          var len21 = dataView(memory0).getInt32(ret + 16, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 20, true);
          var len22 = dataView(memory0).getInt32(ret + 24, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          var ptr23 = dataView(memory0).getInt32(ret + 28, true);
          var len23 = dataView(memory0).getInt32(ret + 32, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          var ptr24 = dataView(memory0).getInt32(ret + 36, true);
          var len24 = dataView(memory0).getInt32(ret + 40, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 44, true);
          var len25 = dataView(memory0).getInt32(ret + 48, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          var ptr26 = dataView(memory0).getInt32(ret + 52, true);
          var len26 = dataView(memory0).getInt32(ret + 56, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          var ptr27 = dataView(memory0).getInt32(ret + 60, true);
          var len27 = dataView(memory0).getInt32(ret + 64, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          var ptr28 = dataView(memory0).getInt32(ret + 68, true);
          var len28 = dataView(memory0).getInt32(ret + 72, true);
          var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
          var len37 = dataView(memory0).getInt32(ret + 80, true);
          var base37 = dataView(memory0).getInt32(ret + 76, true);
          var result37 = [];
          for (let i = 0; i < len37; i++) {
            const base = base37 + i * 44;
            let enum29;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum29 = 'scope';
                break;
              }
              case 1: {
                enum29 = 'tool';
                break;
              }
              case 2: {
                enum29 = 'run-id';
                break;
              }
              case 3: {
                enum29 = 'step-id';
                break;
              }
              case 4: {
                enum29 = 'args';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for IntentPart');
              }
            }
            let variant31;
            switch (dataView(memory0).getUint8(base + 4, true)) {
              case 0: {
                variant31 = undefined;
                break;
              }
              case 1: {
                var ptr30 = dataView(memory0).getInt32(base + 8, true);
                var len30 = dataView(memory0).getInt32(base + 12, true);
                var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                variant31 = result30;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant33;
            switch (dataView(memory0).getUint8(base + 16, true)) {
              case 0: {
                variant33 = undefined;
                break;
              }
              case 1: {
                var ptr32 = dataView(memory0).getInt32(base + 20, true);
                var len32 = dataView(memory0).getInt32(base + 24, true);
                var result32 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr32, len32));
                variant33 = result32;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant35;
            switch (dataView(memory0).getUint8(base + 28, true)) {
              case 0: {
                variant35 = undefined;
                break;
              }
              case 1: {
                var ptr34 = dataView(memory0).getInt32(base + 32, true);
                var len34 = dataView(memory0).getInt32(base + 36, true);
                var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
                variant35 = result34;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let enum36;
            switch (dataView(memory0).getUint8(base + 40, true)) {
              case 0: {
                enum36 = 'key';
                break;
              }
              case 1: {
                enum36 = 'fingerprint';
                break;
              }
              case 2: {
                enum36 = 'none';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for DifferenceEffect');
              }
            }
            result37.push({
              part: enum29,
              pointer: variant31,
              a: variant33,
              b: variant35,
              effect: enum36,
            });
          }
          variant45= {
            tag: 'ok',
            val: {
              verdict: enum20,
              keyA: {
                key: result21,
                preimage: result22,
                fingerprint: result23,
                argsCanonical: result24,
              },
              keyB: {
                key: result25,
                preimage: result26,
                fingerprint: result27,
                argsCanonical: result28,
              },
              differences: result37,
            }
          };
          break;
        }
        case 1: {
          let enum38;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum38 = 'invalid-args';
              break;
            }
            case 1: {
              enum38 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum38 = 'missing-member';
              break;
            }
            case 3: {
              enum38 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum38 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant40;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant40 = undefined;
              break;
            }
            case 1: {
              var ptr39 = dataView(memory0).getInt32(ret + 16, true);
              var len39 = dataView(memory0).getInt32(ret + 20, true);
              var result39 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr39, len39));
              variant40 = result39;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant43;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant43 = undefined;
              break;
            }
            case 1: {
              let enum41;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum41 = 'syntax';
                  break;
                }
                case 1: {
                  enum41 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum41 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum41 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum41 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum41 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum41 = 'too-deep';
                  break;
                }
                case 7: {
                  enum41 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr42 = dataView(memory0).getInt32(ret + 56, true);
              var len42 = dataView(memory0).getInt32(ret + 60, true);
              var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
              variant43 = {
                kind: enum41,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result42,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr44 = dataView(memory0).getInt32(ret + 64, true);
          var len44 = dataView(memory0).getInt32(ret + 68, true);
          var result44 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr44, len44));
          variant45= {
            tag: 'err',
            val: {
              kind: enum38,
              at: variant40,
              canon: variant43,
              message: result44,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant45;
      postReturn5(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010Classify;
    
    function classify(arg0) {
      var {readOnlyHint: v0_0, destructiveHint: v0_1, idempotentHint: v0_2, openWorldHint: v0_3 } = arg0;
      var variant1 = v0_0;
      let variant1_0;
      let variant1_1;
      if (variant1 === null || variant1=== undefined) {
        variant1_0 = 0;
        variant1_1 = 0;
      } else {
        const e = variant1;
        variant1_0 = 1;
        variant1_1 = e ? 1 : 0;
      }
      var variant2 = v0_1;
      let variant2_0;
      let variant2_1;
      if (variant2 === null || variant2=== undefined) {
        variant2_0 = 0;
        variant2_1 = 0;
      } else {
        const e = variant2;
        variant2_0 = 1;
        variant2_1 = e ? 1 : 0;
      }
      var variant3 = v0_2;
      let variant3_0;
      let variant3_1;
      if (variant3 === null || variant3=== undefined) {
        variant3_0 = 0;
        variant3_1 = 0;
      } else {
        const e = variant3;
        variant3_0 = 1;
        variant3_1 = e ? 1 : 0;
      }
      var variant4 = v0_3;
      let variant4_0;
      let variant4_1;
      if (variant4 === null || variant4=== undefined) {
        variant4_0 = 0;
        variant4_1 = 0;
      } else {
        const e = variant4;
        variant4_0 = 1;
        variant4_1 = e ? 1 : 0;
      }
      const ret = policy010Classify(variant1_0, variant1_1, variant2_0, variant2_1, variant3_0, variant3_1, variant4_0, variant4_1);
      let enum5;
      switch (ret) {
        case 0: {
          enum5 = 'read-only';
          break;
        }
        case 1: {
          enum5 = 'overwriting-write';
          break;
        }
        case 2: {
          enum5 = 'accumulating-write';
          break;
        }
        case 3: {
          enum5 = 'irreversible-external';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for EffectClass');
        }
      }
      return enum5;
    }
    let policy010DefaultPolicy;
    
    function defaultPolicy(arg0) {
      var val0 = arg0;
      let enum0;
      switch (val0) {
        case 'read-only': {
          enum0 = 0;
          break;
        }
        case 'overwriting-write': {
          enum0 = 1;
          break;
        }
        case 'accumulating-write': {
          enum0 = 2;
          break;
        }
        case 'irreversible-external': {
          enum0 = 3;
          break;
        }
        default: {
          if ((arg0) instanceof Error) {
            console.error(arg0);
          }
          
          throw new TypeError(`"${val0}" is not one of the cases of effect-class`);
        }
      }
      const ret = policy010DefaultPolicy(enum0);
      let enum1;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          enum1 = 'read-only';
          break;
        }
        case 1: {
          enum1 = 'overwriting-write';
          break;
        }
        case 2: {
          enum1 = 'accumulating-write';
          break;
        }
        case 3: {
          enum1 = 'irreversible-external';
          break;
        }
        default: {
          throw new TypeError('invalid discriminant specified for EffectClass');
        }
      }
      let variant8;
      switch (dataView(memory0).getUint8(ret + 4, true)) {
        case 0: {
          variant8 = undefined;
          break;
        }
        case 1: {
          let variant4;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant4 = undefined;
              break;
            }
            case 1: {
              var len3 = dataView(memory0).getInt32(ret + 16, true);
              var base3 = dataView(memory0).getInt32(ret + 12, true);
              var result3 = [];
              for (let i = 0; i < len3; i++) {
                const base = base3 + i * 8;
                var ptr2 = dataView(memory0).getInt32(base + 0, true);
                var len2 = dataView(memory0).getInt32(base + 4, true);
                var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
                result3.push(result2);
              }
              variant4 = result3;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var len6 = dataView(memory0).getInt32(ret + 24, true);
          var base6 = dataView(memory0).getInt32(ret + 20, true);
          var result6 = [];
          for (let i = 0; i < len6; i++) {
            const base = base6 + i * 8;
            var ptr5 = dataView(memory0).getInt32(base + 0, true);
            var len5 = dataView(memory0).getInt32(base + 4, true);
            var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
            result6.push(result5);
          }
          let enum7;
          switch (dataView(memory0).getUint8(ret + 28, true)) {
            case 0: {
              enum7 = 'step';
              break;
            }
            case 1: {
              enum7 = 'run';
              break;
            }
            case 2: {
              enum7 = 'scope';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyIdentity');
            }
          }
          variant8 = {
            only: variant4,
            ignore: result6,
            identity: enum7,
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant10;
      switch (dataView(memory0).getUint8(ret + 32, true)) {
        case 0: {
          variant10= {
            tag: 'none',
          };
          break;
        }
        case 1: {
          variant10= {
            tag: 'provider-idempotent',
          };
          break;
        }
        case 2: {
          var ptr9 = dataView(memory0).getInt32(ret + 36, true);
          var len9 = dataView(memory0).getInt32(ret + 40, true);
          var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
          variant10= {
            tag: 'lookup',
            val: result9
          };
          break;
        }
        case 3: {
          variant10= {
            tag: 'manual',
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for ReconcilePath');
        }
      }
      const retVal = {
        class: enum1,
        key: variant8,
        reconcile: variant10,
        leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 48, true)),
        maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
        reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
        escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
        retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
      };
      postReturn6(ret);
      return retVal;
    }
    let policy010ParsePolicy;
    
    function parsePolicy(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010ParsePolicy(ptr0, len0);
      let variant13;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum1;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum1 = 'read-only';
              break;
            }
            case 1: {
              enum1 = 'overwriting-write';
              break;
            }
            case 2: {
              enum1 = 'accumulating-write';
              break;
            }
            case 3: {
              enum1 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant8;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant8 = undefined;
              break;
            }
            case 1: {
              let variant4;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  variant4 = undefined;
                  break;
                }
                case 1: {
                  var len3 = dataView(memory0).getInt32(ret + 24, true);
                  var base3 = dataView(memory0).getInt32(ret + 20, true);
                  var result3 = [];
                  for (let i = 0; i < len3; i++) {
                    const base = base3 + i * 8;
                    var ptr2 = dataView(memory0).getInt32(base + 0, true);
                    var len2 = dataView(memory0).getInt32(base + 4, true);
                    var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
                    result3.push(result2);
                  }
                  variant4 = result3;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len6 = dataView(memory0).getInt32(ret + 32, true);
              var base6 = dataView(memory0).getInt32(ret + 28, true);
              var result6 = [];
              for (let i = 0; i < len6; i++) {
                const base = base6 + i * 8;
                var ptr5 = dataView(memory0).getInt32(base + 0, true);
                var len5 = dataView(memory0).getInt32(base + 4, true);
                var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
                result6.push(result5);
              }
              let enum7;
              switch (dataView(memory0).getUint8(ret + 36, true)) {
                case 0: {
                  enum7 = 'step';
                  break;
                }
                case 1: {
                  enum7 = 'run';
                  break;
                }
                case 2: {
                  enum7 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant8 = {
                only: variant4,
                ignore: result6,
                identity: enum7,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant10;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant10= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant10= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr9 = dataView(memory0).getInt32(ret + 44, true);
              var len9 = dataView(memory0).getInt32(ret + 48, true);
              var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
              variant10= {
                tag: 'lookup',
                val: result9
              };
              break;
            }
            case 3: {
              variant10= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          variant13= {
            tag: 'ok',
            val: {
              class: enum1,
              key: variant8,
              reconcile: variant10,
              leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true)),
              maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
              reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
              escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
              retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
            }
          };
          break;
        }
        case 1: {
          var ptr11 = dataView(memory0).getInt32(ret + 8, true);
          var len11 = dataView(memory0).getInt32(ret + 12, true);
          var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
          var ptr12 = dataView(memory0).getInt32(ret + 16, true);
          var len12 = dataView(memory0).getInt32(ret + 20, true);
          var result12 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr12, len12));
          variant13= {
            tag: 'err',
            val: {
              at: result11,
              message: result12,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant13;
      postReturn7(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010ResolveTool;
    
    function resolveTool(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010ResolveTool(ptr0, len0);
      let variant15;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 8, true);
          var len1 = dataView(memory0).getInt32(ret + 12, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          let enum2;
          switch (dataView(memory0).getUint8(ret + 16, true)) {
            case 0: {
              enum2 = 'read-only';
              break;
            }
            case 1: {
              enum2 = 'overwriting-write';
              break;
            }
            case 2: {
              enum2 = 'accumulating-write';
              break;
            }
            case 3: {
              enum2 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant9;
          switch (dataView(memory0).getUint8(ret + 20, true)) {
            case 0: {
              variant9 = undefined;
              break;
            }
            case 1: {
              let variant5;
              switch (dataView(memory0).getUint8(ret + 24, true)) {
                case 0: {
                  variant5 = undefined;
                  break;
                }
                case 1: {
                  var len4 = dataView(memory0).getInt32(ret + 32, true);
                  var base4 = dataView(memory0).getInt32(ret + 28, true);
                  var result4 = [];
                  for (let i = 0; i < len4; i++) {
                    const base = base4 + i * 8;
                    var ptr3 = dataView(memory0).getInt32(base + 0, true);
                    var len3 = dataView(memory0).getInt32(base + 4, true);
                    var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
                    result4.push(result3);
                  }
                  variant5 = result4;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len7 = dataView(memory0).getInt32(ret + 40, true);
              var base7 = dataView(memory0).getInt32(ret + 36, true);
              var result7 = [];
              for (let i = 0; i < len7; i++) {
                const base = base7 + i * 8;
                var ptr6 = dataView(memory0).getInt32(base + 0, true);
                var len6 = dataView(memory0).getInt32(base + 4, true);
                var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
                result7.push(result6);
              }
              let enum8;
              switch (dataView(memory0).getUint8(ret + 44, true)) {
                case 0: {
                  enum8 = 'step';
                  break;
                }
                case 1: {
                  enum8 = 'run';
                  break;
                }
                case 2: {
                  enum8 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant9 = {
                only: variant5,
                ignore: result7,
                identity: enum8,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant11;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant11= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant11= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr10 = dataView(memory0).getInt32(ret + 52, true);
              var len10 = dataView(memory0).getInt32(ret + 56, true);
              var result10 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr10, len10));
              variant11= {
                tag: 'lookup',
                val: result10
              };
              break;
            }
            case 3: {
              variant11= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          let enum12;
          switch (dataView(memory0).getUint8(ret + 104, true)) {
            case 0: {
              enum12 = 'policy';
              break;
            }
            case 1: {
              enum12 = 'annotations';
              break;
            }
            case 2: {
              enum12 = 'defaults';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ClassSource');
            }
          }
          variant15= {
            tag: 'ok',
            val: {
              name: result1,
              policy: {
                class: enum2,
                key: variant9,
                reconcile: variant11,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 88, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 96, true)),
              },
              classSource: enum12,
            }
          };
          break;
        }
        case 1: {
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          var ptr14 = dataView(memory0).getInt32(ret + 16, true);
          var len14 = dataView(memory0).getInt32(ret + 20, true);
          var result14 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr14, len14));
          variant15= {
            tag: 'err',
            val: {
              at: result13,
              message: result14,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant15;
      postReturn8(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let policy010CheckManifest;
    
    function checkManifest(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = policy010CheckManifest(ptr0, len0);
      let variant23;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var bool1 = dataView(memory0).getUint8(ret + 4, true);
          var len14 = dataView(memory0).getInt32(ret + 12, true);
          var base14 = dataView(memory0).getInt32(ret + 8, true);
          var result14 = [];
          for (let i = 0; i < len14; i++) {
            const base = base14 + i * 104;
            var ptr2 = dataView(memory0).getInt32(base + 0, true);
            var len2 = dataView(memory0).getInt32(base + 4, true);
            var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
            let enum3;
            switch (dataView(memory0).getUint8(base + 8, true)) {
              case 0: {
                enum3 = 'read-only';
                break;
              }
              case 1: {
                enum3 = 'overwriting-write';
                break;
              }
              case 2: {
                enum3 = 'accumulating-write';
                break;
              }
              case 3: {
                enum3 = 'irreversible-external';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for EffectClass');
              }
            }
            let variant10;
            switch (dataView(memory0).getUint8(base + 12, true)) {
              case 0: {
                variant10 = undefined;
                break;
              }
              case 1: {
                let variant6;
                switch (dataView(memory0).getUint8(base + 16, true)) {
                  case 0: {
                    variant6 = undefined;
                    break;
                  }
                  case 1: {
                    var len5 = dataView(memory0).getInt32(base + 24, true);
                    var base5 = dataView(memory0).getInt32(base + 20, true);
                    var result5 = [];
                    for (let i = 0; i < len5; i++) {
                      const base = base5 + i * 8;
                      var ptr4 = dataView(memory0).getInt32(base + 0, true);
                      var len4 = dataView(memory0).getInt32(base + 4, true);
                      var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
                      result5.push(result4);
                    }
                    variant6 = result5;
                    break;
                  }
                  default: {
                    throw new TypeError('invalid variant discriminant for option');
                  }
                }
                var len8 = dataView(memory0).getInt32(base + 32, true);
                var base8 = dataView(memory0).getInt32(base + 28, true);
                var result8 = [];
                for (let i = 0; i < len8; i++) {
                  const base = base8 + i * 8;
                  var ptr7 = dataView(memory0).getInt32(base + 0, true);
                  var len7 = dataView(memory0).getInt32(base + 4, true);
                  var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
                  result8.push(result7);
                }
                let enum9;
                switch (dataView(memory0).getUint8(base + 36, true)) {
                  case 0: {
                    enum9 = 'step';
                    break;
                  }
                  case 1: {
                    enum9 = 'run';
                    break;
                  }
                  case 2: {
                    enum9 = 'scope';
                    break;
                  }
                  default: {
                    throw new TypeError('invalid discriminant specified for KeyIdentity');
                  }
                }
                variant10 = {
                  only: variant6,
                  ignore: result8,
                  identity: enum9,
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            let variant12;
            switch (dataView(memory0).getUint8(base + 40, true)) {
              case 0: {
                variant12= {
                  tag: 'none',
                };
                break;
              }
              case 1: {
                variant12= {
                  tag: 'provider-idempotent',
                };
                break;
              }
              case 2: {
                var ptr11 = dataView(memory0).getInt32(base + 44, true);
                var len11 = dataView(memory0).getInt32(base + 48, true);
                var result11 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr11, len11));
                variant12= {
                  tag: 'lookup',
                  val: result11
                };
                break;
              }
              case 3: {
                variant12= {
                  tag: 'manual',
                };
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for ReconcilePath');
              }
            }
            let enum13;
            switch (dataView(memory0).getUint8(base + 96, true)) {
              case 0: {
                enum13 = 'policy';
                break;
              }
              case 1: {
                enum13 = 'annotations';
                break;
              }
              case 2: {
                enum13 = 'defaults';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for ClassSource');
              }
            }
            result14.push({
              name: result2,
              policy: {
                class: enum3,
                key: variant10,
                reconcile: variant12,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 56, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 64, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 72, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 80, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(base + 88, true)),
              },
              classSource: enum13,
            });
          }
          var len20 = dataView(memory0).getInt32(ret + 20, true);
          var base20 = dataView(memory0).getInt32(ret + 16, true);
          var result20 = [];
          for (let i = 0; i < len20; i++) {
            const base = base20 + i * 32;
            let enum15;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum15 = 'error';
                break;
              }
              case 1: {
                enum15 = 'warning';
                break;
              }
              case 2: {
                enum15 = 'info';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for Severity');
              }
            }
            let variant17;
            switch (dataView(memory0).getUint8(base + 4, true)) {
              case 0: {
                variant17 = undefined;
                break;
              }
              case 1: {
                var ptr16 = dataView(memory0).getInt32(base + 8, true);
                var len16 = dataView(memory0).getInt32(base + 12, true);
                var result16 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr16, len16));
                variant17 = result16;
                break;
              }
              default: {
                throw new TypeError('invalid variant discriminant for option');
              }
            }
            var ptr18 = dataView(memory0).getInt32(base + 16, true);
            var len18 = dataView(memory0).getInt32(base + 20, true);
            var result18 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr18, len18));
            var ptr19 = dataView(memory0).getInt32(base + 24, true);
            var len19 = dataView(memory0).getInt32(base + 28, true);
            var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
            result20.push({
              severity: enum15,
              tool: variant17,
              code: result18,
              message: result19,
            });
          }
          variant23= {
            tag: 'ok',
            val: {
              passed: bool1 == 0 ? false : (bool1 == 1 ? true : throwInvalidBool()),
              tools: result14,
              findings: result20,
            }
          };
          break;
        }
        case 1: {
          var ptr21 = dataView(memory0).getInt32(ret + 4, true);
          var len21 = dataView(memory0).getInt32(ret + 8, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 12, true);
          var len22 = dataView(memory0).getInt32(ret + 16, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          variant23= {
            tag: 'err',
            val: {
              at: result21,
              message: result22,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant23;
      postReturn9(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let ledger010Prepare;
    
    function prepare(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 136);
      var {scope: v1_0, runId: v1_1, stepId: v1_2, tool: v1_3, argsJson: v1_4 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var ptr3 = utf8Encode(v1_1, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v1_2, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      var ptr5 = utf8Encode(v1_3, realloc0, memory0);
      var len5 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 28, len5, true);
      dataView(memory0).setInt32(ptr0 + 24, ptr5, true);
      var ptr6 = utf8Encode(v1_4, realloc0, memory0);
      var len6 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 36, len6, true);
      dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
      var {class: v7_0, key: v7_1, reconcile: v7_2, leaseMs: v7_3, maxCallMs: v7_4, reconcileAfterMs: v7_5, escalateAfterMs: v7_6, retentionMs: v7_7 } = arg1;
      var val8 = v7_0;
      let enum8;
      switch (val8) {
        case 'read-only': {
          enum8 = 0;
          break;
        }
        case 'overwriting-write': {
          enum8 = 1;
          break;
        }
        case 'accumulating-write': {
          enum8 = 2;
          break;
        }
        case 'irreversible-external': {
          enum8 = 3;
          break;
        }
        default: {
          if ((v7_0) instanceof Error) {
            console.error(v7_0);
          }
          
          throw new TypeError(`"${val8}" is not one of the cases of effect-class`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 40, enum8, true);
      var variant16 = v7_1;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 44, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 44, 1, true);
        var {only: v9_0, ignore: v9_1, identity: v9_2 } = e;
        var variant12 = v9_0;
        if (variant12 === null || variant12=== undefined) {
          dataView(memory0).setInt8(ptr0 + 48, 0, true);
        } else {
          const e = variant12;
          dataView(memory0).setInt8(ptr0 + 48, 1, true);
          var vec11 = e;
          var len11 = vec11.length;
          var result11 = realloc0(0, 0, 4, len11 * 8);
          for (let i = 0; i < vec11.length; i++) {
            const e = vec11[i];
            const base = result11 + i * 8;var ptr10 = utf8Encode(e, realloc0, memory0);
            var len10 = utf8EncodedLen;
            dataView(memory0).setInt32(base + 4, len10, true);
            dataView(memory0).setInt32(base + 0, ptr10, true);
          }
          dataView(memory0).setInt32(ptr0 + 56, len11, true);
          dataView(memory0).setInt32(ptr0 + 52, result11, true);
        }
        var vec14 = v9_1;
        var len14 = vec14.length;
        var result14 = realloc0(0, 0, 4, len14 * 8);
        for (let i = 0; i < vec14.length; i++) {
          const e = vec14[i];
          const base = result14 + i * 8;var ptr13 = utf8Encode(e, realloc0, memory0);
          var len13 = utf8EncodedLen;
          dataView(memory0).setInt32(base + 4, len13, true);
          dataView(memory0).setInt32(base + 0, ptr13, true);
        }
        dataView(memory0).setInt32(ptr0 + 64, len14, true);
        dataView(memory0).setInt32(ptr0 + 60, result14, true);
        var val15 = v9_2;
        let enum15;
        switch (val15) {
          case 'step': {
            enum15 = 0;
            break;
          }
          case 'run': {
            enum15 = 1;
            break;
          }
          case 'scope': {
            enum15 = 2;
            break;
          }
          default: {
            if ((v9_2) instanceof Error) {
              console.error(v9_2);
            }
            
            throw new TypeError(`"${val15}" is not one of the cases of key-identity`);
          }
        }
        dataView(memory0).setInt8(ptr0 + 68, enum15, true);
      }
      var variant18 = v7_2;
      switch (variant18.tag) {
        case 'none': {
          dataView(memory0).setInt8(ptr0 + 72, 0, true);
          break;
        }
        case 'provider-idempotent': {
          dataView(memory0).setInt8(ptr0 + 72, 1, true);
          break;
        }
        case 'lookup': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 72, 2, true);
          var ptr17 = utf8Encode(e, realloc0, memory0);
          var len17 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 80, len17, true);
          dataView(memory0).setInt32(ptr0 + 76, ptr17, true);
          break;
        }
        case 'manual': {
          dataView(memory0).setInt8(ptr0 + 72, 3, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant18.tag)}\` (received \`${variant18}\`) specified for \`ReconcilePath\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v7_3), true);
      dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v7_4), true);
      dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v7_5), true);
      dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v7_6), true);
      dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v7_7), true);
      var ptr19 = utf8Encode(arg2, realloc0, memory0);
      var len19 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 132, len19, true);
      dataView(memory0).setInt32(ptr0 + 128, ptr19, true);
      const ret = ledger010Prepare(ptr0);
      let variant43;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr20 = dataView(memory0).getInt32(ret + 8, true);
          var len20 = dataView(memory0).getInt32(ret + 12, true);
          var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
          var ptr21 = dataView(memory0).getInt32(ret + 16, true);
          var len21 = dataView(memory0).getInt32(ret + 20, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          var ptr22 = dataView(memory0).getInt32(ret + 24, true);
          var len22 = dataView(memory0).getInt32(ret + 28, true);
          var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
          var ptr23 = dataView(memory0).getInt32(ret + 32, true);
          var len23 = dataView(memory0).getInt32(ret + 36, true);
          var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
          var ptr24 = dataView(memory0).getInt32(ret + 40, true);
          var len24 = dataView(memory0).getInt32(ret + 44, true);
          var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
          var ptr25 = dataView(memory0).getInt32(ret + 48, true);
          var len25 = dataView(memory0).getInt32(ret + 52, true);
          var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
          let enum26;
          switch (dataView(memory0).getUint8(ret + 56, true)) {
            case 0: {
              enum26 = 'read-only';
              break;
            }
            case 1: {
              enum26 = 'overwriting-write';
              break;
            }
            case 2: {
              enum26 = 'accumulating-write';
              break;
            }
            case 3: {
              enum26 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant33;
          switch (dataView(memory0).getUint8(ret + 60, true)) {
            case 0: {
              variant33 = undefined;
              break;
            }
            case 1: {
              let variant29;
              switch (dataView(memory0).getUint8(ret + 64, true)) {
                case 0: {
                  variant29 = undefined;
                  break;
                }
                case 1: {
                  var len28 = dataView(memory0).getInt32(ret + 72, true);
                  var base28 = dataView(memory0).getInt32(ret + 68, true);
                  var result28 = [];
                  for (let i = 0; i < len28; i++) {
                    const base = base28 + i * 8;
                    var ptr27 = dataView(memory0).getInt32(base + 0, true);
                    var len27 = dataView(memory0).getInt32(base + 4, true);
                    var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
                    result28.push(result27);
                  }
                  variant29 = result28;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len31 = dataView(memory0).getInt32(ret + 80, true);
              var base31 = dataView(memory0).getInt32(ret + 76, true);
              var result31 = [];
              for (let i = 0; i < len31; i++) {
                const base = base31 + i * 8;
                var ptr30 = dataView(memory0).getInt32(base + 0, true);
                var len30 = dataView(memory0).getInt32(base + 4, true);
                var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                result31.push(result30);
              }
              let enum32;
              switch (dataView(memory0).getUint8(ret + 84, true)) {
                case 0: {
                  enum32 = 'step';
                  break;
                }
                case 1: {
                  enum32 = 'run';
                  break;
                }
                case 2: {
                  enum32 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant33 = {
                only: variant29,
                ignore: result31,
                identity: enum32,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant35;
          switch (dataView(memory0).getUint8(ret + 88, true)) {
            case 0: {
              variant35= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant35= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr34 = dataView(memory0).getInt32(ret + 92, true);
              var len34 = dataView(memory0).getInt32(ret + 96, true);
              var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
              variant35= {
                tag: 'lookup',
                val: result34
              };
              break;
            }
            case 3: {
              variant35= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          variant43= {
            tag: 'ok',
            val: {
              scope: result20,
              tool: result21,
              key: result22,
              fingerprint: result23,
              argsCanonical: result24,
              owner: result25,
              policy: {
                class: enum26,
                key: variant33,
                reconcile: variant35,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 112, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
              },
            }
          };
          break;
        }
        case 1: {
          let enum36;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum36 = 'invalid-args';
              break;
            }
            case 1: {
              enum36 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum36 = 'missing-member';
              break;
            }
            case 3: {
              enum36 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum36 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant38;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant38 = undefined;
              break;
            }
            case 1: {
              var ptr37 = dataView(memory0).getInt32(ret + 16, true);
              var len37 = dataView(memory0).getInt32(ret + 20, true);
              var result37 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr37, len37));
              variant38 = result37;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant41;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant41 = undefined;
              break;
            }
            case 1: {
              let enum39;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum39 = 'syntax';
                  break;
                }
                case 1: {
                  enum39 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum39 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum39 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum39 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum39 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum39 = 'too-deep';
                  break;
                }
                case 7: {
                  enum39 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr40 = dataView(memory0).getInt32(ret + 56, true);
              var len40 = dataView(memory0).getInt32(ret + 60, true);
              var result40 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr40, len40));
              variant41 = {
                kind: enum39,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result40,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr42 = dataView(memory0).getInt32(ret + 64, true);
          var len42 = dataView(memory0).getInt32(ret + 68, true);
          var result42 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr42, len42));
          variant43= {
            tag: 'err',
            val: {
              kind: enum36,
              at: variant38,
              canon: variant41,
              message: result42,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant43;
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let effect010Run;
    
    function run(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 280);
      var val1 = arg0;
      var len1 = val1.byteLength;
      var ptr1 = realloc0(0, 0, 1, len1 * 1);
      var src1 = new Uint8Array(val1.buffer || val1, val1.byteOffset, len1 * 1);
      (new Uint8Array(memory0.buffer, ptr1, len1 * 1)).set(src1);
      dataView(memory0).setInt32(ptr0 + 4, len1, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr1, true);
      var variant111 = arg1;
      switch (variant111.tag) {
        case 'start': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 0, true);
          var variant80 = e;
          switch (variant80.tag) {
            case 'effect': {
              const e = variant80.val;
              dataView(memory0).setInt8(ptr0 + 16, 0, true);
              var {intent: v2_0, policy: v2_1, options: v2_2 } = e;
              var {scope: v3_0, runId: v3_1, stepId: v3_2, tool: v3_3, argsJson: v3_4 } = v2_0;
              var ptr4 = utf8Encode(v3_0, realloc0, memory0);
              var len4 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len4, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr4, true);
              var ptr5 = utf8Encode(v3_1, realloc0, memory0);
              var len5 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len5, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr5, true);
              var ptr6 = utf8Encode(v3_2, realloc0, memory0);
              var len6 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 44, len6, true);
              dataView(memory0).setInt32(ptr0 + 40, ptr6, true);
              var ptr7 = utf8Encode(v3_3, realloc0, memory0);
              var len7 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 52, len7, true);
              dataView(memory0).setInt32(ptr0 + 48, ptr7, true);
              var ptr8 = utf8Encode(v3_4, realloc0, memory0);
              var len8 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 60, len8, true);
              dataView(memory0).setInt32(ptr0 + 56, ptr8, true);
              var {class: v9_0, key: v9_1, reconcile: v9_2, leaseMs: v9_3, maxCallMs: v9_4, reconcileAfterMs: v9_5, escalateAfterMs: v9_6, retentionMs: v9_7 } = v2_1;
              var val10 = v9_0;
              let enum10;
              switch (val10) {
                case 'read-only': {
                  enum10 = 0;
                  break;
                }
                case 'overwriting-write': {
                  enum10 = 1;
                  break;
                }
                case 'accumulating-write': {
                  enum10 = 2;
                  break;
                }
                case 'irreversible-external': {
                  enum10 = 3;
                  break;
                }
                default: {
                  if ((v9_0) instanceof Error) {
                    console.error(v9_0);
                  }
                  
                  throw new TypeError(`"${val10}" is not one of the cases of effect-class`);
                }
              }
              dataView(memory0).setInt8(ptr0 + 64, enum10, true);
              var variant18 = v9_1;
              if (variant18 === null || variant18=== undefined) {
                dataView(memory0).setInt8(ptr0 + 68, 0, true);
              } else {
                const e = variant18;
                dataView(memory0).setInt8(ptr0 + 68, 1, true);
                var {only: v11_0, ignore: v11_1, identity: v11_2 } = e;
                var variant14 = v11_0;
                if (variant14 === null || variant14=== undefined) {
                  dataView(memory0).setInt8(ptr0 + 72, 0, true);
                } else {
                  const e = variant14;
                  dataView(memory0).setInt8(ptr0 + 72, 1, true);
                  var vec13 = e;
                  var len13 = vec13.length;
                  var result13 = realloc0(0, 0, 4, len13 * 8);
                  for (let i = 0; i < vec13.length; i++) {
                    const e = vec13[i];
                    const base = result13 + i * 8;var ptr12 = utf8Encode(e, realloc0, memory0);
                    var len12 = utf8EncodedLen;
                    dataView(memory0).setInt32(base + 4, len12, true);
                    dataView(memory0).setInt32(base + 0, ptr12, true);
                  }
                  dataView(memory0).setInt32(ptr0 + 80, len13, true);
                  dataView(memory0).setInt32(ptr0 + 76, result13, true);
                }
                var vec16 = v11_1;
                var len16 = vec16.length;
                var result16 = realloc0(0, 0, 4, len16 * 8);
                for (let i = 0; i < vec16.length; i++) {
                  const e = vec16[i];
                  const base = result16 + i * 8;var ptr15 = utf8Encode(e, realloc0, memory0);
                  var len15 = utf8EncodedLen;
                  dataView(memory0).setInt32(base + 4, len15, true);
                  dataView(memory0).setInt32(base + 0, ptr15, true);
                }
                dataView(memory0).setInt32(ptr0 + 88, len16, true);
                dataView(memory0).setInt32(ptr0 + 84, result16, true);
                var val17 = v11_2;
                let enum17;
                switch (val17) {
                  case 'step': {
                    enum17 = 0;
                    break;
                  }
                  case 'run': {
                    enum17 = 1;
                    break;
                  }
                  case 'scope': {
                    enum17 = 2;
                    break;
                  }
                  default: {
                    if ((v11_2) instanceof Error) {
                      console.error(v11_2);
                    }
                    
                    throw new TypeError(`"${val17}" is not one of the cases of key-identity`);
                  }
                }
                dataView(memory0).setInt8(ptr0 + 92, enum17, true);
              }
              var variant20 = v9_2;
              switch (variant20.tag) {
                case 'none': {
                  dataView(memory0).setInt8(ptr0 + 96, 0, true);
                  break;
                }
                case 'provider-idempotent': {
                  dataView(memory0).setInt8(ptr0 + 96, 1, true);
                  break;
                }
                case 'lookup': {
                  const e = variant20.val;
                  dataView(memory0).setInt8(ptr0 + 96, 2, true);
                  var ptr19 = utf8Encode(e, realloc0, memory0);
                  var len19 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 104, len19, true);
                  dataView(memory0).setInt32(ptr0 + 100, ptr19, true);
                  break;
                }
                case 'manual': {
                  dataView(memory0).setInt8(ptr0 + 96, 3, true);
                  break;
                }
                default: {
                  throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant20.tag)}\` (received \`${variant20}\`) specified for \`ReconcilePath\``);
                }
              }
              dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v9_3), true);
              dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v9_4), true);
              dataView(memory0).setBigInt64(ptr0 + 128, toUint64(v9_5), true);
              dataView(memory0).setBigInt64(ptr0 + 136, toUint64(v9_6), true);
              dataView(memory0).setBigInt64(ptr0 + 144, toUint64(v9_7), true);
              var {owner: v21_0, maxAttempts: v21_1, waitMs: v21_2, hasReconciler: v21_3 } = v2_2;
              var ptr22 = utf8Encode(v21_0, realloc0, memory0);
              var len22 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 156, len22, true);
              dataView(memory0).setInt32(ptr0 + 152, ptr22, true);
              dataView(memory0).setInt32(ptr0 + 160, toUint32(v21_1), true);
              dataView(memory0).setBigInt64(ptr0 + 168, toUint64(v21_2), true);
              dataView(memory0).setInt8(ptr0 + 176, v21_3 ? 1 : 0, true);
              break;
            }
            case 'event': {
              const e = variant80.val;
              dataView(memory0).setInt8(ptr0 + 16, 1, true);
              var {scope: v23_0, key: v23_1, event: v23_2 } = e;
              var ptr24 = utf8Encode(v23_0, realloc0, memory0);
              var len24 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len24, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr24, true);
              var ptr25 = utf8Encode(v23_1, realloc0, memory0);
              var len25 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len25, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr25, true);
              var variant72 = v23_2;
              switch (variant72.tag) {
                case 'begin': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 0, true);
                  var {scope: v26_0, tool: v26_1, key: v26_2, fingerprint: v26_3, argsCanonical: v26_4, owner: v26_5, policy: v26_6 } = e;
                  var ptr27 = utf8Encode(v26_0, realloc0, memory0);
                  var len27 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 52, len27, true);
                  dataView(memory0).setInt32(ptr0 + 48, ptr27, true);
                  var ptr28 = utf8Encode(v26_1, realloc0, memory0);
                  var len28 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 60, len28, true);
                  dataView(memory0).setInt32(ptr0 + 56, ptr28, true);
                  var ptr29 = utf8Encode(v26_2, realloc0, memory0);
                  var len29 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 68, len29, true);
                  dataView(memory0).setInt32(ptr0 + 64, ptr29, true);
                  var ptr30 = utf8Encode(v26_3, realloc0, memory0);
                  var len30 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 76, len30, true);
                  dataView(memory0).setInt32(ptr0 + 72, ptr30, true);
                  var ptr31 = utf8Encode(v26_4, realloc0, memory0);
                  var len31 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 84, len31, true);
                  dataView(memory0).setInt32(ptr0 + 80, ptr31, true);
                  var ptr32 = utf8Encode(v26_5, realloc0, memory0);
                  var len32 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 92, len32, true);
                  dataView(memory0).setInt32(ptr0 + 88, ptr32, true);
                  var {class: v33_0, key: v33_1, reconcile: v33_2, leaseMs: v33_3, maxCallMs: v33_4, reconcileAfterMs: v33_5, escalateAfterMs: v33_6, retentionMs: v33_7 } = v26_6;
                  var val34 = v33_0;
                  let enum34;
                  switch (val34) {
                    case 'read-only': {
                      enum34 = 0;
                      break;
                    }
                    case 'overwriting-write': {
                      enum34 = 1;
                      break;
                    }
                    case 'accumulating-write': {
                      enum34 = 2;
                      break;
                    }
                    case 'irreversible-external': {
                      enum34 = 3;
                      break;
                    }
                    default: {
                      if ((v33_0) instanceof Error) {
                        console.error(v33_0);
                      }
                      
                      throw new TypeError(`"${val34}" is not one of the cases of effect-class`);
                    }
                  }
                  dataView(memory0).setInt8(ptr0 + 96, enum34, true);
                  var variant42 = v33_1;
                  if (variant42 === null || variant42=== undefined) {
                    dataView(memory0).setInt8(ptr0 + 100, 0, true);
                  } else {
                    const e = variant42;
                    dataView(memory0).setInt8(ptr0 + 100, 1, true);
                    var {only: v35_0, ignore: v35_1, identity: v35_2 } = e;
                    var variant38 = v35_0;
                    if (variant38 === null || variant38=== undefined) {
                      dataView(memory0).setInt8(ptr0 + 104, 0, true);
                    } else {
                      const e = variant38;
                      dataView(memory0).setInt8(ptr0 + 104, 1, true);
                      var vec37 = e;
                      var len37 = vec37.length;
                      var result37 = realloc0(0, 0, 4, len37 * 8);
                      for (let i = 0; i < vec37.length; i++) {
                        const e = vec37[i];
                        const base = result37 + i * 8;var ptr36 = utf8Encode(e, realloc0, memory0);
                        var len36 = utf8EncodedLen;
                        dataView(memory0).setInt32(base + 4, len36, true);
                        dataView(memory0).setInt32(base + 0, ptr36, true);
                      }
                      dataView(memory0).setInt32(ptr0 + 112, len37, true);
                      dataView(memory0).setInt32(ptr0 + 108, result37, true);
                    }
                    var vec40 = v35_1;
                    var len40 = vec40.length;
                    var result40 = realloc0(0, 0, 4, len40 * 8);
                    for (let i = 0; i < vec40.length; i++) {
                      const e = vec40[i];
                      const base = result40 + i * 8;var ptr39 = utf8Encode(e, realloc0, memory0);
                      var len39 = utf8EncodedLen;
                      dataView(memory0).setInt32(base + 4, len39, true);
                      dataView(memory0).setInt32(base + 0, ptr39, true);
                    }
                    dataView(memory0).setInt32(ptr0 + 120, len40, true);
                    dataView(memory0).setInt32(ptr0 + 116, result40, true);
                    var val41 = v35_2;
                    let enum41;
                    switch (val41) {
                      case 'step': {
                        enum41 = 0;
                        break;
                      }
                      case 'run': {
                        enum41 = 1;
                        break;
                      }
                      case 'scope': {
                        enum41 = 2;
                        break;
                      }
                      default: {
                        if ((v35_2) instanceof Error) {
                          console.error(v35_2);
                        }
                        
                        throw new TypeError(`"${val41}" is not one of the cases of key-identity`);
                      }
                    }
                    dataView(memory0).setInt8(ptr0 + 124, enum41, true);
                  }
                  var variant44 = v33_2;
                  switch (variant44.tag) {
                    case 'none': {
                      dataView(memory0).setInt8(ptr0 + 128, 0, true);
                      break;
                    }
                    case 'provider-idempotent': {
                      dataView(memory0).setInt8(ptr0 + 128, 1, true);
                      break;
                    }
                    case 'lookup': {
                      const e = variant44.val;
                      dataView(memory0).setInt8(ptr0 + 128, 2, true);
                      var ptr43 = utf8Encode(e, realloc0, memory0);
                      var len43 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 136, len43, true);
                      dataView(memory0).setInt32(ptr0 + 132, ptr43, true);
                      break;
                    }
                    case 'manual': {
                      dataView(memory0).setInt8(ptr0 + 128, 3, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant44.tag)}\` (received \`${variant44}\`) specified for \`ReconcilePath\``);
                    }
                  }
                  dataView(memory0).setBigInt64(ptr0 + 144, toUint64(v33_3), true);
                  dataView(memory0).setBigInt64(ptr0 + 152, toUint64(v33_4), true);
                  dataView(memory0).setBigInt64(ptr0 + 160, toUint64(v33_5), true);
                  dataView(memory0).setBigInt64(ptr0 + 168, toUint64(v33_6), true);
                  dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v33_7), true);
                  break;
                }
                case 'heartbeat': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 1, true);
                  var {attempt: v45_0, owner: v45_1 } = e;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v45_0), true);
                  var ptr46 = utf8Encode(v45_1, realloc0, memory0);
                  var len46 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len46, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr46, true);
                  break;
                }
                case 'complete': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 2, true);
                  var {token: v47_0, resultJson: v47_1 } = e;
                  var {attempt: v48_0, owner: v48_1 } = v47_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v48_0), true);
                  var ptr49 = utf8Encode(v48_1, realloc0, memory0);
                  var len49 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len49, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr49, true);
                  var ptr50 = utf8Encode(v47_1, realloc0, memory0);
                  var len50 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len50, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr50, true);
                  break;
                }
                case 'fail-definite': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 3, true);
                  var {token: v51_0, reason: v51_1 } = e;
                  var {attempt: v52_0, owner: v52_1 } = v51_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v52_0), true);
                  var ptr53 = utf8Encode(v52_1, realloc0, memory0);
                  var len53 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len53, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr53, true);
                  var ptr54 = utf8Encode(v51_1, realloc0, memory0);
                  var len54 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len54, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr54, true);
                  break;
                }
                case 'fail-ambiguous': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 4, true);
                  var {token: v55_0, reason: v55_1 } = e;
                  var {attempt: v56_0, owner: v56_1 } = v55_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v56_0), true);
                  var ptr57 = utf8Encode(v56_1, realloc0, memory0);
                  var len57 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len57, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr57, true);
                  var ptr58 = utf8Encode(v55_1, realloc0, memory0);
                  var len58 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len58, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr58, true);
                  break;
                }
                case 'sweep': {
                  dataView(memory0).setInt8(ptr0 + 40, 5, true);
                  break;
                }
                case 'reconciled': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 6, true);
                  var {attempt: v59_0, verdict: v59_1 } = e;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v59_0), true);
                  var variant62 = v59_1;
                  switch (variant62.tag) {
                    case 'happened': {
                      const e = variant62.val;
                      dataView(memory0).setInt8(ptr0 + 52, 0, true);
                      var ptr60 = utf8Encode(e, realloc0, memory0);
                      var len60 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 60, len60, true);
                      dataView(memory0).setInt32(ptr0 + 56, ptr60, true);
                      break;
                    }
                    case 'not-happened': {
                      dataView(memory0).setInt8(ptr0 + 52, 1, true);
                      break;
                    }
                    case 'unknown': {
                      const e = variant62.val;
                      dataView(memory0).setInt8(ptr0 + 52, 2, true);
                      var ptr61 = utf8Encode(e, realloc0, memory0);
                      var len61 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 60, len61, true);
                      dataView(memory0).setInt32(ptr0 + 56, ptr61, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant62.tag)}\` (received \`${variant62}\`) specified for \`ReconcileVerdict\``);
                    }
                  }
                  break;
                }
                case 'resolve': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 7, true);
                  var {settlement: v63_0, by: v63_1, note: v63_2, seenVersion: v63_3 } = e;
                  var variant65 = v63_0;
                  switch (variant65.tag) {
                    case 'happened': {
                      const e = variant65.val;
                      dataView(memory0).setInt8(ptr0 + 48, 0, true);
                      var ptr64 = utf8Encode(e, realloc0, memory0);
                      var len64 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 56, len64, true);
                      dataView(memory0).setInt32(ptr0 + 52, ptr64, true);
                      break;
                    }
                    case 'not-happened': {
                      dataView(memory0).setInt8(ptr0 + 48, 1, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant65.tag)}\` (received \`${variant65}\`) specified for \`Settlement\``);
                    }
                  }
                  var ptr66 = utf8Encode(v63_1, realloc0, memory0);
                  var len66 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len66, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr66, true);
                  var ptr67 = utf8Encode(v63_2, realloc0, memory0);
                  var len67 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 72, len67, true);
                  dataView(memory0).setInt32(ptr0 + 68, ptr67, true);
                  dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v63_3), true);
                  break;
                }
                case 'purge': {
                  dataView(memory0).setInt8(ptr0 + 40, 8, true);
                  break;
                }
                case 'complete-unrecordable': {
                  const e = variant72.val;
                  dataView(memory0).setInt8(ptr0 + 40, 9, true);
                  var {token: v68_0, reason: v68_1 } = e;
                  var {attempt: v69_0, owner: v69_1 } = v68_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v69_0), true);
                  var ptr70 = utf8Encode(v69_1, realloc0, memory0);
                  var len70 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len70, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr70, true);
                  var ptr71 = utf8Encode(v68_1, realloc0, memory0);
                  var len71 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len71, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr71, true);
                  break;
                }
                default: {
                  throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant72.tag)}\` (received \`${variant72}\`) specified for \`Event\``);
                }
              }
              break;
            }
            case 'tend': {
              const e = variant80.val;
              dataView(memory0).setInt8(ptr0 + 16, 2, true);
              var {scope: v73_0, key: v73_1, job: v73_2, hasReconciler: v73_3 } = e;
              var ptr74 = utf8Encode(v73_0, realloc0, memory0);
              var len74 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len74, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr74, true);
              var ptr75 = utf8Encode(v73_1, realloc0, memory0);
              var len75 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len75, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr75, true);
              var val76 = v73_2;
              let enum76;
              switch (val76) {
                case 'sweep': {
                  enum76 = 0;
                  break;
                }
                case 'purge': {
                  enum76 = 1;
                  break;
                }
                default: {
                  if ((v73_2) instanceof Error) {
                    console.error(v73_2);
                  }
                  
                  throw new TypeError(`"${val76}" is not one of the cases of tend-job`);
                }
              }
              dataView(memory0).setInt8(ptr0 + 40, enum76, true);
              dataView(memory0).setInt8(ptr0 + 41, v73_3 ? 1 : 0, true);
              break;
            }
            case 'wait': {
              const e = variant80.val;
              dataView(memory0).setInt8(ptr0 + 16, 3, true);
              var {scope: v77_0, key: v77_1, everyMs: v77_2, timeoutMs: v77_3 } = e;
              var ptr78 = utf8Encode(v77_0, realloc0, memory0);
              var len78 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len78, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr78, true);
              var ptr79 = utf8Encode(v77_1, realloc0, memory0);
              var len79 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len79, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr79, true);
              dataView(memory0).setBigInt64(ptr0 + 40, toUint64(v77_2), true);
              dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v77_3), true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant80.tag)}\` (received \`${variant80}\`) specified for \`Command\``);
            }
          }
          break;
        }
        case 'row': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 1, true);
          var variant102 = e;
          if (variant102 === null || variant102=== undefined) {
            dataView(memory0).setInt8(ptr0 + 16, 0, true);
          } else {
            const e = variant102;
            dataView(memory0).setInt8(ptr0 + 16, 1, true);
            var {scope: v81_0, key: v81_1, tool: v81_2, fingerprint: v81_3, argsCanonical: v81_4, state: v81_5, version: v81_6, attempt: v81_7, owner: v81_8, createdAt: v81_9, updatedAt: v81_10, leaseUntil: v81_11, inDoubtSince: v81_12, nextReconcileAt: v81_13, reconcileAttempts: v81_14, resultJson: v81_15, reason: v81_16, resolvedBy: v81_17, settlement: v81_18, reconcile: v81_19, leaseMs: v81_20, maxCallMs: v81_21, reconcileAfterMs: v81_22, escalateAfterMs: v81_23, retentionMs: v81_24, dueAt: v81_25 } = e;
            var ptr82 = utf8Encode(v81_0, realloc0, memory0);
            var len82 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 28, len82, true);
            dataView(memory0).setInt32(ptr0 + 24, ptr82, true);
            var ptr83 = utf8Encode(v81_1, realloc0, memory0);
            var len83 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 36, len83, true);
            dataView(memory0).setInt32(ptr0 + 32, ptr83, true);
            var ptr84 = utf8Encode(v81_2, realloc0, memory0);
            var len84 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 44, len84, true);
            dataView(memory0).setInt32(ptr0 + 40, ptr84, true);
            var ptr85 = utf8Encode(v81_3, realloc0, memory0);
            var len85 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 52, len85, true);
            dataView(memory0).setInt32(ptr0 + 48, ptr85, true);
            var ptr86 = utf8Encode(v81_4, realloc0, memory0);
            var len86 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 60, len86, true);
            dataView(memory0).setInt32(ptr0 + 56, ptr86, true);
            var val87 = v81_5;
            let enum87;
            switch (val87) {
              case 'pending': {
                enum87 = 0;
                break;
              }
              case 'done': {
                enum87 = 1;
                break;
              }
              case 'failed': {
                enum87 = 2;
                break;
              }
              case 'in-doubt': {
                enum87 = 3;
                break;
              }
              case 'escalated': {
                enum87 = 4;
                break;
              }
              default: {
                if ((v81_5) instanceof Error) {
                  console.error(v81_5);
                }
                
                throw new TypeError(`"${val87}" is not one of the cases of entry-state`);
              }
            }
            dataView(memory0).setInt8(ptr0 + 64, enum87, true);
            dataView(memory0).setBigInt64(ptr0 + 72, toUint64(v81_6), true);
            dataView(memory0).setInt32(ptr0 + 80, toUint32(v81_7), true);
            var ptr88 = utf8Encode(v81_8, realloc0, memory0);
            var len88 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 88, len88, true);
            dataView(memory0).setInt32(ptr0 + 84, ptr88, true);
            dataView(memory0).setBigInt64(ptr0 + 96, toUint64(v81_9), true);
            dataView(memory0).setBigInt64(ptr0 + 104, toUint64(v81_10), true);
            dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v81_11), true);
            var variant89 = v81_12;
            if (variant89 === null || variant89=== undefined) {
              dataView(memory0).setInt8(ptr0 + 120, 0, true);
            } else {
              const e = variant89;
              dataView(memory0).setInt8(ptr0 + 120, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 128, toUint64(e), true);
            }
            var variant90 = v81_13;
            if (variant90 === null || variant90=== undefined) {
              dataView(memory0).setInt8(ptr0 + 136, 0, true);
            } else {
              const e = variant90;
              dataView(memory0).setInt8(ptr0 + 136, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
            }
            dataView(memory0).setInt32(ptr0 + 152, toUint32(v81_14), true);
            var variant92 = v81_15;
            if (variant92 === null || variant92=== undefined) {
              dataView(memory0).setInt8(ptr0 + 156, 0, true);
            } else {
              const e = variant92;
              dataView(memory0).setInt8(ptr0 + 156, 1, true);
              var ptr91 = utf8Encode(e, realloc0, memory0);
              var len91 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 164, len91, true);
              dataView(memory0).setInt32(ptr0 + 160, ptr91, true);
            }
            var variant94 = v81_16;
            if (variant94 === null || variant94=== undefined) {
              dataView(memory0).setInt8(ptr0 + 168, 0, true);
            } else {
              const e = variant94;
              dataView(memory0).setInt8(ptr0 + 168, 1, true);
              var ptr93 = utf8Encode(e, realloc0, memory0);
              var len93 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 176, len93, true);
              dataView(memory0).setInt32(ptr0 + 172, ptr93, true);
            }
            var variant96 = v81_17;
            if (variant96 === null || variant96=== undefined) {
              dataView(memory0).setInt8(ptr0 + 180, 0, true);
            } else {
              const e = variant96;
              dataView(memory0).setInt8(ptr0 + 180, 1, true);
              var ptr95 = utf8Encode(e, realloc0, memory0);
              var len95 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 188, len95, true);
              dataView(memory0).setInt32(ptr0 + 184, ptr95, true);
            }
            var variant98 = v81_18;
            if (variant98 === null || variant98=== undefined) {
              dataView(memory0).setInt8(ptr0 + 192, 0, true);
            } else {
              const e = variant98;
              dataView(memory0).setInt8(ptr0 + 192, 1, true);
              var ptr97 = utf8Encode(e, realloc0, memory0);
              var len97 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 200, len97, true);
              dataView(memory0).setInt32(ptr0 + 196, ptr97, true);
            }
            var variant100 = v81_19;
            switch (variant100.tag) {
              case 'none': {
                dataView(memory0).setInt8(ptr0 + 204, 0, true);
                break;
              }
              case 'provider-idempotent': {
                dataView(memory0).setInt8(ptr0 + 204, 1, true);
                break;
              }
              case 'lookup': {
                const e = variant100.val;
                dataView(memory0).setInt8(ptr0 + 204, 2, true);
                var ptr99 = utf8Encode(e, realloc0, memory0);
                var len99 = utf8EncodedLen;
                dataView(memory0).setInt32(ptr0 + 212, len99, true);
                dataView(memory0).setInt32(ptr0 + 208, ptr99, true);
                break;
              }
              case 'manual': {
                dataView(memory0).setInt8(ptr0 + 204, 3, true);
                break;
              }
              default: {
                throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant100.tag)}\` (received \`${variant100}\`) specified for \`ReconcilePath\``);
              }
            }
            dataView(memory0).setBigInt64(ptr0 + 216, toUint64(v81_20), true);
            dataView(memory0).setBigInt64(ptr0 + 224, toUint64(v81_21), true);
            dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v81_22), true);
            dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v81_23), true);
            dataView(memory0).setBigInt64(ptr0 + 248, toUint64(v81_24), true);
            var variant101 = v81_25;
            if (variant101 === null || variant101=== undefined) {
              dataView(memory0).setInt8(ptr0 + 256, 0, true);
            } else {
              const e = variant101;
              dataView(memory0).setInt8(ptr0 + 256, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 264, toUint64(e), true);
            }
          }
          break;
        }
        case 'written': {
          dataView(memory0).setInt8(ptr0 + 8, 2, true);
          break;
        }
        case 'lost-race': {
          dataView(memory0).setInt8(ptr0 + 8, 3, true);
          break;
        }
        case 'store-failed': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 4, true);
          var ptr103 = utf8Encode(e, realloc0, memory0);
          var len103 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len103, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr103, true);
          break;
        }
        case 'tool-returned': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 5, true);
          var ptr104 = utf8Encode(e, realloc0, memory0);
          var len104 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len104, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr104, true);
          break;
        }
        case 'tool-unencodable': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 6, true);
          var ptr105 = utf8Encode(e, realloc0, memory0);
          var len105 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len105, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr105, true);
          break;
        }
        case 'tool-failed': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 7, true);
          var {definite: v106_0, reason: v106_1 } = e;
          dataView(memory0).setInt8(ptr0 + 16, v106_0 ? 1 : 0, true);
          var ptr107 = utf8Encode(v106_1, realloc0, memory0);
          var len107 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 24, len107, true);
          dataView(memory0).setInt32(ptr0 + 20, ptr107, true);
          break;
        }
        case 'too-late': {
          dataView(memory0).setInt8(ptr0 + 8, 8, true);
          break;
        }
        case 'verdict': {
          const e = variant111.val;
          dataView(memory0).setInt8(ptr0 + 8, 9, true);
          var variant110 = e;
          switch (variant110.tag) {
            case 'happened': {
              const e = variant110.val;
              dataView(memory0).setInt8(ptr0 + 16, 0, true);
              var ptr108 = utf8Encode(e, realloc0, memory0);
              var len108 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 24, len108, true);
              dataView(memory0).setInt32(ptr0 + 20, ptr108, true);
              break;
            }
            case 'not-happened': {
              dataView(memory0).setInt8(ptr0 + 16, 1, true);
              break;
            }
            case 'unknown': {
              const e = variant110.val;
              dataView(memory0).setInt8(ptr0 + 16, 2, true);
              var ptr109 = utf8Encode(e, realloc0, memory0);
              var len109 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 24, len109, true);
              dataView(memory0).setInt32(ptr0 + 20, ptr109, true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant110.tag)}\` (received \`${variant110}\`) specified for \`ReconcileVerdict\``);
            }
          }
          break;
        }
        case 'woke': {
          dataView(memory0).setInt8(ptr0 + 8, 10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant111.tag)}\` (received \`${variant111}\`) specified for \`Input\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 272, toUint64(arg2), true);
      const ret = effect010Run(ptr0);
      let variant219;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr112 = dataView(memory0).getInt32(ret + 8, true);
          var len112 = dataView(memory0).getInt32(ret + 12, true);
          var result112 = new Uint8Array(memory0.buffer.slice(ptr112, ptr112 + len112 * 1));
          let variant115;
          switch (dataView(memory0).getUint8(ret + 16, true)) {
            case 0: {
              variant115 = undefined;
              break;
            }
            case 1: {
              var ptr113 = dataView(memory0).getInt32(ret + 20, true);
              var len113 = dataView(memory0).getInt32(ret + 24, true);
              var result113 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr113, len113));
              var ptr114 = dataView(memory0).getInt32(ret + 28, true);
              var len114 = dataView(memory0).getInt32(ret + 32, true);
              var result114 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr114, len114));
              variant115 = {
                scope: result113,
                key: result114,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant137;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant137 = undefined;
              break;
            }
            case 1: {
              let enum116;
              switch (dataView(memory0).getUint8(ret + 48, true)) {
                case 0: {
                  enum116 = 'insert';
                  break;
                }
                case 1: {
                  enum116 = 'update';
                  break;
                }
                case 2: {
                  enum116 = 'delete';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for WriteOp');
                }
              }
              var ptr117 = dataView(memory0).getInt32(ret + 56, true);
              var len117 = dataView(memory0).getInt32(ret + 60, true);
              var result117 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr117, len117));
              var ptr118 = dataView(memory0).getInt32(ret + 64, true);
              var len118 = dataView(memory0).getInt32(ret + 68, true);
              var result118 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr118, len118));
              var ptr119 = dataView(memory0).getInt32(ret + 72, true);
              var len119 = dataView(memory0).getInt32(ret + 76, true);
              var result119 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr119, len119));
              var ptr120 = dataView(memory0).getInt32(ret + 80, true);
              var len120 = dataView(memory0).getInt32(ret + 84, true);
              var result120 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr120, len120));
              var ptr121 = dataView(memory0).getInt32(ret + 88, true);
              var len121 = dataView(memory0).getInt32(ret + 92, true);
              var result121 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr121, len121));
              let enum122;
              switch (dataView(memory0).getUint8(ret + 96, true)) {
                case 0: {
                  enum122 = 'pending';
                  break;
                }
                case 1: {
                  enum122 = 'done';
                  break;
                }
                case 2: {
                  enum122 = 'failed';
                  break;
                }
                case 3: {
                  enum122 = 'in-doubt';
                  break;
                }
                case 4: {
                  enum122 = 'escalated';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EntryState');
                }
              }
              var ptr123 = dataView(memory0).getInt32(ret + 116, true);
              var len123 = dataView(memory0).getInt32(ret + 120, true);
              var result123 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr123, len123));
              let variant124;
              switch (dataView(memory0).getUint8(ret + 152, true)) {
                case 0: {
                  variant124 = undefined;
                  break;
                }
                case 1: {
                  variant124 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 160, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant125;
              switch (dataView(memory0).getUint8(ret + 168, true)) {
                case 0: {
                  variant125 = undefined;
                  break;
                }
                case 1: {
                  variant125 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 176, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant127;
              switch (dataView(memory0).getUint8(ret + 188, true)) {
                case 0: {
                  variant127 = undefined;
                  break;
                }
                case 1: {
                  var ptr126 = dataView(memory0).getInt32(ret + 192, true);
                  var len126 = dataView(memory0).getInt32(ret + 196, true);
                  var result126 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr126, len126));
                  variant127 = result126;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant129;
              switch (dataView(memory0).getUint8(ret + 200, true)) {
                case 0: {
                  variant129 = undefined;
                  break;
                }
                case 1: {
                  var ptr128 = dataView(memory0).getInt32(ret + 204, true);
                  var len128 = dataView(memory0).getInt32(ret + 208, true);
                  var result128 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr128, len128));
                  variant129 = result128;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant131;
              switch (dataView(memory0).getUint8(ret + 212, true)) {
                case 0: {
                  variant131 = undefined;
                  break;
                }
                case 1: {
                  var ptr130 = dataView(memory0).getInt32(ret + 216, true);
                  var len130 = dataView(memory0).getInt32(ret + 220, true);
                  var result130 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr130, len130));
                  variant131 = result130;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant133;
              switch (dataView(memory0).getUint8(ret + 224, true)) {
                case 0: {
                  variant133 = undefined;
                  break;
                }
                case 1: {
                  var ptr132 = dataView(memory0).getInt32(ret + 228, true);
                  var len132 = dataView(memory0).getInt32(ret + 232, true);
                  var result132 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr132, len132));
                  variant133 = result132;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant135;
              switch (dataView(memory0).getUint8(ret + 236, true)) {
                case 0: {
                  variant135= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant135= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr134 = dataView(memory0).getInt32(ret + 240, true);
                  var len134 = dataView(memory0).getInt32(ret + 244, true);
                  var result134 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr134, len134));
                  variant135= {
                    tag: 'lookup',
                    val: result134
                  };
                  break;
                }
                case 3: {
                  variant135= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              let variant136;
              switch (dataView(memory0).getUint8(ret + 288, true)) {
                case 0: {
                  variant136 = undefined;
                  break;
                }
                case 1: {
                  variant136 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 296, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant137 = {
                op: enum116,
                row: {
                  scope: result117,
                  key: result118,
                  tool: result119,
                  fingerprint: result120,
                  argsCanonical: result121,
                  state: enum122,
                  version: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 104, true)),
                  attempt: dataView(memory0).getInt32(ret + 112, true) >>> 0,
                  owner: result123,
                  createdAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                  updatedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                  leaseUntil: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                  inDoubtSince: variant124,
                  nextReconcileAt: variant125,
                  reconcileAttempts: dataView(memory0).getInt32(ret + 184, true) >>> 0,
                  resultJson: variant127,
                  reason: variant129,
                  resolvedBy: variant131,
                  settlement: variant133,
                  reconcile: variant135,
                  leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 248, true)),
                  maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 256, true)),
                  reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 264, true)),
                  escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 272, true)),
                  retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 280, true)),
                  dueAt: variant136,
                },
                expectedVersion: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 304, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant211;
          switch (dataView(memory0).getUint8(ret + 312, true)) {
            case 0: {
              variant211= {
                tag: 'report',
              };
              break;
            }
            case 1: {
              var ptr138 = dataView(memory0).getInt32(ret + 320, true);
              var len138 = dataView(memory0).getInt32(ret + 324, true);
              var result138 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr138, len138));
              var ptr139 = dataView(memory0).getInt32(ret + 328, true);
              var len139 = dataView(memory0).getInt32(ret + 332, true);
              var result139 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr139, len139));
              let variant141;
              switch (dataView(memory0).getUint8(ret + 336, true)) {
                case 0: {
                  variant141 = undefined;
                  break;
                }
                case 1: {
                  var ptr140 = dataView(memory0).getInt32(ret + 344, true);
                  var len140 = dataView(memory0).getInt32(ret + 348, true);
                  var result140 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr140, len140));
                  variant141 = {
                    attempt: dataView(memory0).getInt32(ret + 340, true) >>> 0,
                    owner: result140,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant142;
              switch (dataView(memory0).getUint8(ret + 352, true)) {
                case 0: {
                  variant142 = undefined;
                  break;
                }
                case 1: {
                  variant142 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 360, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant143;
              switch (dataView(memory0).getUint8(ret + 368, true)) {
                case 0: {
                  variant143 = undefined;
                  break;
                }
                case 1: {
                  variant143 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant144;
              switch (dataView(memory0).getUint8(ret + 384, true)) {
                case 0: {
                  variant144 = undefined;
                  break;
                }
                case 1: {
                  variant144 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 392, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant211= {
                tag: 'call-tool',
                val: {
                  scope: result138,
                  key: result139,
                  token: variant141,
                  notAfter: variant142,
                  deadline: variant143,
                  heartbeatMs: variant144,
                }
              };
              break;
            }
            case 2: {
              var ptr145 = dataView(memory0).getInt32(ret + 320, true);
              var len145 = dataView(memory0).getInt32(ret + 324, true);
              var result145 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr145, len145));
              var ptr146 = dataView(memory0).getInt32(ret + 328, true);
              var len146 = dataView(memory0).getInt32(ret + 332, true);
              var result146 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr146, len146));
              var ptr147 = dataView(memory0).getInt32(ret + 336, true);
              var len147 = dataView(memory0).getInt32(ret + 340, true);
              var result147 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr147, len147));
              var ptr148 = dataView(memory0).getInt32(ret + 344, true);
              var len148 = dataView(memory0).getInt32(ret + 348, true);
              var result148 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr148, len148));
              let variant150;
              switch (dataView(memory0).getUint8(ret + 356, true)) {
                case 0: {
                  variant150= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant150= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr149 = dataView(memory0).getInt32(ret + 360, true);
                  var len149 = dataView(memory0).getInt32(ret + 364, true);
                  var result149 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr149, len149));
                  variant150= {
                    tag: 'lookup',
                    val: result149
                  };
                  break;
                }
                case 3: {
                  variant150= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              variant211= {
                tag: 'call-reconciler',
                val: {
                  scope: result145,
                  key: result146,
                  tool: result147,
                  argsCanonical: result148,
                  attempt: dataView(memory0).getInt32(ret + 352, true) >>> 0,
                  path: variant150,
                  inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 368, true)),
                  escalateAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true)),
                }
              };
              break;
            }
            case 3: {
              var ptr151 = dataView(memory0).getInt32(ret + 320, true);
              var len151 = dataView(memory0).getInt32(ret + 324, true);
              var result151 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr151, len151));
              variant211= {
                tag: 'recall-tool',
                val: result151
              };
              break;
            }
            case 4: {
              variant211= {
                tag: 'sleep-until',
                val: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 320, true))
              };
              break;
            }
            case 5: {
              let variant190;
              switch (dataView(memory0).getUint8(ret + 320, true)) {
                case 0: {
                  var ptr152 = dataView(memory0).getInt32(ret + 328, true);
                  var len152 = dataView(memory0).getInt32(ret + 332, true);
                  var result152 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr152, len152));
                  let variant154;
                  switch (dataView(memory0).getUint8(ret + 336, true)) {
                    case 0: {
                      variant154= {
                        tag: 'tool-value',
                      };
                      break;
                    }
                    case 1: {
                      var ptr153 = dataView(memory0).getInt32(ret + 340, true);
                      var len153 = dataView(memory0).getInt32(ret + 344, true);
                      var result153 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr153, len153));
                      variant154= {
                        tag: 'recorded',
                        val: result153
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for ResultSource');
                    }
                  }
                  var bool155 = dataView(memory0).getUint8(ret + 348, true);
                  var bool156 = dataView(memory0).getUint8(ret + 349, true);
                  variant190= {
                    tag: 'effect',
                    val: {
                      key: result152,
                      source: variant154,
                      replayed: bool155 == 0 ? false : (bool155 == 1 ? true : throwInvalidBool()),
                      reconciled: bool156 == 0 ? false : (bool156 == 1 ? true : throwInvalidBool()),
                    }
                  };
                  break;
                }
                case 1: {
                  let variant178;
                  switch (dataView(memory0).getUint8(ret + 328, true)) {
                    case 0: {
                      var ptr157 = dataView(memory0).getInt32(ret + 340, true);
                      var len157 = dataView(memory0).getInt32(ret + 344, true);
                      var result157 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr157, len157));
                      variant178= {
                        tag: 'execute',
                        val: {
                          attempt: dataView(memory0).getInt32(ret + 336, true) >>> 0,
                          owner: result157,
                        }
                      };
                      break;
                    }
                    case 1: {
                      var ptr158 = dataView(memory0).getInt32(ret + 336, true);
                      var len158 = dataView(memory0).getInt32(ret + 340, true);
                      var result158 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr158, len158));
                      variant178= {
                        tag: 'replay',
                        val: {
                          resultJson: result158,
                          attempt: dataView(memory0).getInt32(ret + 344, true) >>> 0,
                          recordedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 352, true)),
                        }
                      };
                      break;
                    }
                    case 2: {
                      var ptr159 = dataView(memory0).getInt32(ret + 336, true);
                      var len159 = dataView(memory0).getInt32(ret + 340, true);
                      var result159 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr159, len159));
                      let enum160;
                      switch (dataView(memory0).getUint8(ret + 344, true)) {
                        case 0: {
                          enum160 = 'pending';
                          break;
                        }
                        case 1: {
                          enum160 = 'done';
                          break;
                        }
                        case 2: {
                          enum160 = 'failed';
                          break;
                        }
                        case 3: {
                          enum160 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum160 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant178= {
                        tag: 'in-progress',
                        val: {
                          owner: result159,
                          state: enum160,
                          retryAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 352, true)),
                        }
                      };
                      break;
                    }
                    case 3: {
                      var ptr161 = dataView(memory0).getInt32(ret + 336, true);
                      var len161 = dataView(memory0).getInt32(ret + 340, true);
                      var result161 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr161, len161));
                      var ptr162 = dataView(memory0).getInt32(ret + 344, true);
                      var len162 = dataView(memory0).getInt32(ret + 348, true);
                      var result162 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr162, len162));
                      var ptr163 = dataView(memory0).getInt32(ret + 352, true);
                      var len163 = dataView(memory0).getInt32(ret + 356, true);
                      var result163 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr163, len163));
                      var ptr164 = dataView(memory0).getInt32(ret + 360, true);
                      var len164 = dataView(memory0).getInt32(ret + 364, true);
                      var result164 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr164, len164));
                      let variant166;
                      switch (dataView(memory0).getUint8(ret + 372, true)) {
                        case 0: {
                          variant166= {
                            tag: 'none',
                          };
                          break;
                        }
                        case 1: {
                          variant166= {
                            tag: 'provider-idempotent',
                          };
                          break;
                        }
                        case 2: {
                          var ptr165 = dataView(memory0).getInt32(ret + 376, true);
                          var len165 = dataView(memory0).getInt32(ret + 380, true);
                          var result165 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr165, len165));
                          variant166= {
                            tag: 'lookup',
                            val: result165
                          };
                          break;
                        }
                        case 3: {
                          variant166= {
                            tag: 'manual',
                          };
                          break;
                        }
                        default: {
                          throw new TypeError('invalid variant discriminant for ReconcilePath');
                        }
                      }
                      variant178= {
                        tag: 'reconcile',
                        val: {
                          scope: result161,
                          key: result162,
                          tool: result163,
                          argsCanonical: result164,
                          attempt: dataView(memory0).getInt32(ret + 368, true) >>> 0,
                          path: variant166,
                          inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 384, true)),
                          escalateAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 392, true)),
                        }
                      };
                      break;
                    }
                    case 4: {
                      var ptr167 = dataView(memory0).getInt32(ret + 336, true);
                      var len167 = dataView(memory0).getInt32(ret + 340, true);
                      var result167 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr167, len167));
                      var ptr168 = dataView(memory0).getInt32(ret + 344, true);
                      var len168 = dataView(memory0).getInt32(ret + 348, true);
                      var result168 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr168, len168));
                      var ptr169 = dataView(memory0).getInt32(ret + 352, true);
                      var len169 = dataView(memory0).getInt32(ret + 356, true);
                      var result169 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr169, len169));
                      var ptr170 = dataView(memory0).getInt32(ret + 364, true);
                      var len170 = dataView(memory0).getInt32(ret + 368, true);
                      var result170 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr170, len170));
                      variant178= {
                        tag: 'escalated',
                        val: {
                          scope: result167,
                          key: result168,
                          tool: result169,
                          attempt: dataView(memory0).getInt32(ret + 360, true) >>> 0,
                          reason: result170,
                          inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true)),
                        }
                      };
                      break;
                    }
                    case 5: {
                      var ptr171 = dataView(memory0).getInt32(ret + 336, true);
                      var len171 = dataView(memory0).getInt32(ret + 340, true);
                      var result171 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr171, len171));
                      var ptr172 = dataView(memory0).getInt32(ret + 344, true);
                      var len172 = dataView(memory0).getInt32(ret + 348, true);
                      var result172 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr172, len172));
                      var ptr173 = dataView(memory0).getInt32(ret + 352, true);
                      var len173 = dataView(memory0).getInt32(ret + 356, true);
                      var result173 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr173, len173));
                      var ptr174 = dataView(memory0).getInt32(ret + 360, true);
                      var len174 = dataView(memory0).getInt32(ret + 364, true);
                      var result174 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr174, len174));
                      variant178= {
                        tag: 'conflict',
                        val: {
                          key: result171,
                          pointer: result172,
                          storedFingerprint: result173,
                          givenFingerprint: result174,
                        }
                      };
                      break;
                    }
                    case 6: {
                      variant178= {
                        tag: 'pass-through',
                      };
                      break;
                    }
                    case 7: {
                      let enum175;
                      switch (dataView(memory0).getUint8(ret + 336, true)) {
                        case 0: {
                          enum175 = 'pending';
                          break;
                        }
                        case 1: {
                          enum175 = 'done';
                          break;
                        }
                        case 2: {
                          enum175 = 'failed';
                          break;
                        }
                        case 3: {
                          enum175 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum175 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant178= {
                        tag: 'recorded',
                        val: enum175
                      };
                      break;
                    }
                    case 8: {
                      var ptr176 = dataView(memory0).getInt32(ret + 336, true);
                      var len176 = dataView(memory0).getInt32(ret + 340, true);
                      var result176 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr176, len176));
                      variant178= {
                        tag: 'settled',
                        val: result176
                      };
                      break;
                    }
                    case 9: {
                      variant178= {
                        tag: 'purged',
                      };
                      break;
                    }
                    case 10: {
                      let variant177;
                      switch (dataView(memory0).getUint8(ret + 336, true)) {
                        case 0: {
                          variant177 = undefined;
                          break;
                        }
                        case 1: {
                          variant177 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 344, true));
                          break;
                        }
                        default: {
                          throw new TypeError('invalid variant discriminant for option');
                        }
                      }
                      variant178= {
                        tag: 'idle',
                        val: variant177
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for Outcome');
                    }
                  }
                  variant190= {
                    tag: 'event',
                    val: variant178
                  };
                  break;
                }
                case 2: {
                  var ptr179 = dataView(memory0).getInt32(ret + 328, true);
                  var len179 = dataView(memory0).getInt32(ret + 332, true);
                  var result179 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr179, len179));
                  var ptr180 = dataView(memory0).getInt32(ret + 336, true);
                  var len180 = dataView(memory0).getInt32(ret + 340, true);
                  var result180 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr180, len180));
                  var ptr181 = dataView(memory0).getInt32(ret + 344, true);
                  var len181 = dataView(memory0).getInt32(ret + 348, true);
                  var result181 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr181, len181));
                  var bool182 = dataView(memory0).getUint8(ret + 352, true);
                  let variant184;
                  switch (dataView(memory0).getUint8(ret + 353, true)) {
                    case 0: {
                      variant184 = undefined;
                      break;
                    }
                    case 1: {
                      let enum183;
                      switch (dataView(memory0).getUint8(ret + 354, true)) {
                        case 0: {
                          enum183 = 'happened';
                          break;
                        }
                        case 1: {
                          enum183 = 'not-happened';
                          break;
                        }
                        case 2: {
                          enum183 = 'unknown';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for VerdictKind');
                        }
                      }
                      variant184 = enum183;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant186;
                  switch (dataView(memory0).getUint8(ret + 356, true)) {
                    case 0: {
                      variant186 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr185 = dataView(memory0).getInt32(ret + 360, true);
                      var len185 = dataView(memory0).getInt32(ret + 364, true);
                      var result185 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr185, len185));
                      variant186 = result185;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  var bool187 = dataView(memory0).getUint8(ret + 368, true);
                  let variant189;
                  switch (dataView(memory0).getUint8(ret + 372, true)) {
                    case 0: {
                      variant189 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr188 = dataView(memory0).getInt32(ret + 376, true);
                      var len188 = dataView(memory0).getInt32(ret + 380, true);
                      var result188 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr188, len188));
                      variant189 = result188;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant190= {
                    tag: 'tended',
                    val: {
                      scope: result179,
                      key: result180,
                      tool: result181,
                      leaseExpired: bool182 == 0 ? false : (bool182 == 1 ? true : throwInvalidBool()),
                      reconciled: variant184,
                      escalated: variant186,
                      purged: bool187 == 0 ? false : (bool187 == 1 ? true : throwInvalidBool()),
                      skipped: variant189,
                    }
                  };
                  break;
                }
                case 3: {
                  variant190= {
                    tag: 'waited',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for Finish');
                }
              }
              variant211= {
                tag: 'finish',
                val: variant190
              };
              break;
            }
            case 6: {
              let variant210;
              switch (dataView(memory0).getUint8(ret + 320, true)) {
                case 0: {
                  var ptr191 = dataView(memory0).getInt32(ret + 324, true);
                  var len191 = dataView(memory0).getInt32(ret + 328, true);
                  var result191 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr191, len191));
                  var ptr192 = dataView(memory0).getInt32(ret + 332, true);
                  var len192 = dataView(memory0).getInt32(ret + 336, true);
                  var result192 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr192, len192));
                  var ptr193 = dataView(memory0).getInt32(ret + 340, true);
                  var len193 = dataView(memory0).getInt32(ret + 344, true);
                  var result193 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr193, len193));
                  var ptr194 = dataView(memory0).getInt32(ret + 348, true);
                  var len194 = dataView(memory0).getInt32(ret + 352, true);
                  var result194 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr194, len194));
                  variant210= {
                    tag: 'conflict',
                    val: {
                      key: result191,
                      pointer: result192,
                      storedFingerprint: result193,
                      givenFingerprint: result194,
                    }
                  };
                  break;
                }
                case 1: {
                  var ptr195 = dataView(memory0).getInt32(ret + 324, true);
                  var len195 = dataView(memory0).getInt32(ret + 328, true);
                  var result195 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr195, len195));
                  var ptr196 = dataView(memory0).getInt32(ret + 332, true);
                  var len196 = dataView(memory0).getInt32(ret + 336, true);
                  var result196 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr196, len196));
                  let enum197;
                  switch (dataView(memory0).getUint8(ret + 340, true)) {
                    case 0: {
                      enum197 = 'pending';
                      break;
                    }
                    case 1: {
                      enum197 = 'done';
                      break;
                    }
                    case 2: {
                      enum197 = 'failed';
                      break;
                    }
                    case 3: {
                      enum197 = 'in-doubt';
                      break;
                    }
                    case 4: {
                      enum197 = 'escalated';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for EntryState');
                    }
                  }
                  variant210= {
                    tag: 'in-progress',
                    val: {
                      key: result195,
                      owner: result196,
                      state: enum197,
                    }
                  };
                  break;
                }
                case 2: {
                  var ptr198 = dataView(memory0).getInt32(ret + 324, true);
                  var len198 = dataView(memory0).getInt32(ret + 328, true);
                  var result198 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr198, len198));
                  var ptr199 = dataView(memory0).getInt32(ret + 332, true);
                  var len199 = dataView(memory0).getInt32(ret + 336, true);
                  var result199 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr199, len199));
                  variant210= {
                    tag: 'in-doubt',
                    val: {
                      key: result198,
                      reason: result199,
                    }
                  };
                  break;
                }
                case 3: {
                  var ptr200 = dataView(memory0).getInt32(ret + 324, true);
                  var len200 = dataView(memory0).getInt32(ret + 328, true);
                  var result200 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr200, len200));
                  var ptr201 = dataView(memory0).getInt32(ret + 332, true);
                  var len201 = dataView(memory0).getInt32(ret + 336, true);
                  var result201 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr201, len201));
                  variant210= {
                    tag: 'escalated',
                    val: {
                      key: result200,
                      reason: result201,
                    }
                  };
                  break;
                }
                case 4: {
                  var ptr202 = dataView(memory0).getInt32(ret + 324, true);
                  var len202 = dataView(memory0).getInt32(ret + 328, true);
                  var result202 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr202, len202));
                  variant210= {
                    tag: 'tool-failed',
                    val: result202
                  };
                  break;
                }
                case 5: {
                  var ptr203 = dataView(memory0).getInt32(ret + 324, true);
                  var len203 = dataView(memory0).getInt32(ret + 328, true);
                  var result203 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr203, len203));
                  var ptr204 = dataView(memory0).getInt32(ret + 332, true);
                  var len204 = dataView(memory0).getInt32(ret + 336, true);
                  var result204 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr204, len204));
                  variant210= {
                    tag: 'result-not-recorded',
                    val: {
                      key: result203,
                      reason: result204,
                    }
                  };
                  break;
                }
                case 6: {
                  var ptr205 = dataView(memory0).getInt32(ret + 324, true);
                  var len205 = dataView(memory0).getInt32(ret + 328, true);
                  var result205 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr205, len205));
                  variant210= {
                    tag: 'storage',
                    val: result205
                  };
                  break;
                }
                case 7: {
                  let enum206;
                  switch (dataView(memory0).getUint8(ret + 324, true)) {
                    case 0: {
                      enum206 = 'not-found';
                      break;
                    }
                    case 1: {
                      enum206 = 'stale-token';
                      break;
                    }
                    case 2: {
                      enum206 = 'invalid-state';
                      break;
                    }
                    case 3: {
                      enum206 = 'already-settled';
                      break;
                    }
                    case 4: {
                      enum206 = 'retention-not-reached';
                      break;
                    }
                    case 5: {
                      enum206 = 'invalid-request';
                      break;
                    }
                    case 6: {
                      enum206 = 'changed';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for LedgerErrorKind');
                    }
                  }
                  let variant208;
                  switch (dataView(memory0).getUint8(ret + 325, true)) {
                    case 0: {
                      variant208 = undefined;
                      break;
                    }
                    case 1: {
                      let enum207;
                      switch (dataView(memory0).getUint8(ret + 326, true)) {
                        case 0: {
                          enum207 = 'pending';
                          break;
                        }
                        case 1: {
                          enum207 = 'done';
                          break;
                        }
                        case 2: {
                          enum207 = 'failed';
                          break;
                        }
                        case 3: {
                          enum207 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum207 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant208 = enum207;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  var ptr209 = dataView(memory0).getInt32(ret + 328, true);
                  var len209 = dataView(memory0).getInt32(ret + 332, true);
                  var result209 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr209, len209));
                  variant210= {
                    tag: 'ledger',
                    val: {
                      kind: enum206,
                      state: variant208,
                      message: result209,
                    }
                  };
                  break;
                }
                case 8: {
                  variant210= {
                    tag: 'contention',
                    val: dataView(memory0).getInt32(ret + 324, true) >>> 0
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for EffectError');
                }
              }
              variant211= {
                tag: 'raise',
                val: variant210
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Action');
            }
          }
          variant219= {
            tag: 'ok',
            val: {
              state: result112,
              read: variant115,
              write: variant137,
              action: variant211,
            }
          };
          break;
        }
        case 1: {
          let enum212;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum212 = 'invalid-args';
              break;
            }
            case 1: {
              enum212 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum212 = 'missing-member';
              break;
            }
            case 3: {
              enum212 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum212 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant214;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant214 = undefined;
              break;
            }
            case 1: {
              var ptr213 = dataView(memory0).getInt32(ret + 16, true);
              var len213 = dataView(memory0).getInt32(ret + 20, true);
              var result213 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr213, len213));
              variant214 = result213;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant217;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant217 = undefined;
              break;
            }
            case 1: {
              let enum215;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum215 = 'syntax';
                  break;
                }
                case 1: {
                  enum215 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum215 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum215 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum215 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum215 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum215 = 'too-deep';
                  break;
                }
                case 7: {
                  enum215 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr216 = dataView(memory0).getInt32(ret + 56, true);
              var len216 = dataView(memory0).getInt32(ret + 60, true);
              var result216 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr216, len216));
              variant217 = {
                kind: enum215,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result216,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr218 = dataView(memory0).getInt32(ret + 64, true);
          var len218 = dataView(memory0).getInt32(ret + 68, true);
          var result218 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr218, len218));
          variant219= {
            tag: 'err',
            val: {
              kind: enum212,
              at: variant214,
              canon: variant217,
              message: result218,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant219;
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    canonical010MaxInputBytes = exports0['oncely:core/canonical@0.1.0#max-input-bytes'];
    canonical010MaxDepth = exports0['oncely:core/canonical@0.1.0#max-depth'];
    canonical010Canonicalize = exports0['oncely:core/canonical@0.1.0#canonicalize'];
    canonical010CanonicalizeBytes = exports0['oncely:core/canonical@0.1.0#canonicalize-bytes'];
    keys010Derive = exports0['oncely:core/keys@0.1.0#derive'];
    keys010Key = exports0['oncely:core/keys@0.1.0#key'];
    keys010DeriveMany = exports0['oncely:core/keys@0.1.0#derive-many'];
    keys010DefaultSpec = exports0['oncely:core/keys@0.1.0#default-spec'];
    keys010Explain = exports0['oncely:core/keys@0.1.0#explain'];
    policy010Classify = exports0['oncely:core/policy@0.1.0#classify'];
    policy010DefaultPolicy = exports0['oncely:core/policy@0.1.0#default-policy'];
    policy010ParsePolicy = exports0['oncely:core/policy@0.1.0#parse-policy'];
    policy010ResolveTool = exports0['oncely:core/policy@0.1.0#resolve-tool'];
    policy010CheckManifest = exports0['oncely:core/policy@0.1.0#check-manifest'];
    ledger010Prepare = exports0['oncely:core/ledger@0.1.0#prepare'];
    effect010Run = exports0['oncely:core/effect@0.1.0#run'];
    const canonical010 = {
      canonicalize: canonicalize,
      canonicalizeBytes: canonicalizeBytes,
      maxDepth: maxDepth,
      maxInputBytes: maxInputBytes,
      
    };
    const effect010 = {
      run: run,
      
    };
    const keys010 = {
      defaultSpec: defaultSpec,
      derive: derive,
      deriveMany: deriveMany,
      explain: explain,
      key: key,
      
    };
    const ledger010 = {
      prepare: prepare,
      
    };
    const policy010 = {
      checkManifest: checkManifest,
      classify: classify,
      defaultPolicy: defaultPolicy,
      parsePolicy: parsePolicy,
      resolveTool: resolveTool,
      
    };
    
    return { canonical: canonical010, effect: effect010, keys: keys010, ledger: ledger010, policy: policy010, 'oncely:core/canonical@0.1.0': canonical010, 'oncely:core/effect@0.1.0': effect010, 'oncely:core/keys@0.1.0': keys010, 'oncely:core/ledger@0.1.0': ledger010, 'oncely:core/policy@0.1.0': policy010,  };
  })();
  let promise, resolve, reject;
  function runNext (value) {
    try {
      let done;
      do {
        ({ value, done } = gen.next(value));
      } while (!(value instanceof Promise) && !done);
      if (done) {
        if (resolve) return resolve(value);
        else return value;
      }
      if (!promise) promise = new Promise((_resolve, _reject) => (resolve = _resolve, reject = _reject));
      value.then(nextVal => done ? resolve() : runNext(nextVal), reject);
    }
    catch (e) {
      if (reject) reject(e);
      else throw e;
    }
  }
  const maybeSyncReturn = runNext(null);
  return promise || maybeSyncReturn;
}
