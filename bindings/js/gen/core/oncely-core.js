export function instantiate(getCoreModule, imports, instantiateCore = (module, importObject) => new WebAssembly.Instance(module, importObject)) {
  
  function clampGuest(i, min, max) {
    if (i < min || i > max) throw new TypeError(`must be between ${min} and ${max}`);
    return i;
  }
  
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
  
  function toUint16(val) {
    val >>>= 0;
    val %= 2 ** 16;
    return val;
  }
  
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
    let postReturn12;
    let postReturn13;
    let postReturn14;
    let postReturn15;
    let postReturn16;
    let postReturn17;
    let postReturn18;
    let postReturn19;
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
    postReturn12 = exports0['cabi_post_oncely:core/provider@0.1.0#admit'];
    postReturn13 = exports0['cabi_post_oncely:core/provider@0.1.0#oversized'];
    postReturn14 = exports0['cabi_post_oncely:core/provider@0.1.0#check-operation'];
    postReturn15 = exports0['cabi_post_oncely:core/provider@0.1.0#record-http'];
    postReturn16 = exports0['cabi_post_oncely:core/provider@0.1.0#replay-http'];
    postReturn17 = exports0['cabi_post_oncely:core/provider@0.1.0#refuse'];
    postReturn18 = exports0['cabi_post_oncely:core/agent@0.1.0#identify'];
    postReturn19 = exports0['cabi_post_oncely:core/agent@0.1.0#answer'];
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
      let variant45;
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
          var ptr26 = dataView(memory0).getInt32(ret + 56, true);
          var len26 = dataView(memory0).getInt32(ret + 60, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          var ptr27 = dataView(memory0).getInt32(ret + 64, true);
          var len27 = dataView(memory0).getInt32(ret + 68, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          let enum28;
          switch (dataView(memory0).getUint8(ret + 72, true)) {
            case 0: {
              enum28 = 'read-only';
              break;
            }
            case 1: {
              enum28 = 'overwriting-write';
              break;
            }
            case 2: {
              enum28 = 'accumulating-write';
              break;
            }
            case 3: {
              enum28 = 'irreversible-external';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for EffectClass');
            }
          }
          let variant35;
          switch (dataView(memory0).getUint8(ret + 76, true)) {
            case 0: {
              variant35 = undefined;
              break;
            }
            case 1: {
              let variant31;
              switch (dataView(memory0).getUint8(ret + 80, true)) {
                case 0: {
                  variant31 = undefined;
                  break;
                }
                case 1: {
                  var len30 = dataView(memory0).getInt32(ret + 88, true);
                  var base30 = dataView(memory0).getInt32(ret + 84, true);
                  var result30 = [];
                  for (let i = 0; i < len30; i++) {
                    const base = base30 + i * 8;
                    var ptr29 = dataView(memory0).getInt32(base + 0, true);
                    var len29 = dataView(memory0).getInt32(base + 4, true);
                    var result29 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr29, len29));
                    result30.push(result29);
                  }
                  variant31 = result30;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var len33 = dataView(memory0).getInt32(ret + 96, true);
              var base33 = dataView(memory0).getInt32(ret + 92, true);
              var result33 = [];
              for (let i = 0; i < len33; i++) {
                const base = base33 + i * 8;
                var ptr32 = dataView(memory0).getInt32(base + 0, true);
                var len32 = dataView(memory0).getInt32(base + 4, true);
                var result32 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr32, len32));
                result33.push(result32);
              }
              let enum34;
              switch (dataView(memory0).getUint8(ret + 100, true)) {
                case 0: {
                  enum34 = 'step';
                  break;
                }
                case 1: {
                  enum34 = 'run';
                  break;
                }
                case 2: {
                  enum34 = 'scope';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for KeyIdentity');
                }
              }
              variant35 = {
                only: variant31,
                ignore: result33,
                identity: enum34,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant37;
          switch (dataView(memory0).getUint8(ret + 104, true)) {
            case 0: {
              variant37= {
                tag: 'none',
              };
              break;
            }
            case 1: {
              variant37= {
                tag: 'provider-idempotent',
              };
              break;
            }
            case 2: {
              var ptr36 = dataView(memory0).getInt32(ret + 108, true);
              var len36 = dataView(memory0).getInt32(ret + 112, true);
              var result36 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr36, len36));
              variant37= {
                tag: 'lookup',
                val: result36
              };
              break;
            }
            case 3: {
              variant37= {
                tag: 'manual',
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for ReconcilePath');
            }
          }
          variant45= {
            tag: 'ok',
            val: {
              scope: result20,
              tool: result21,
              runId: result22,
              stepId: result23,
              key: result24,
              fingerprint: result25,
              argsCanonical: result26,
              owner: result27,
              policy: {
                class: enum28,
                key: variant35,
                reconcile: variant37,
                leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
              },
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
      postReturn10(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let effect010Run;
    
    function run(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 8, 296);
      var val1 = arg0;
      var len1 = val1.byteLength;
      var ptr1 = realloc0(0, 0, 1, len1 * 1);
      var src1 = new Uint8Array(val1.buffer || val1, val1.byteOffset, len1 * 1);
      (new Uint8Array(memory0.buffer, ptr1, len1 * 1)).set(src1);
      dataView(memory0).setInt32(ptr0 + 4, len1, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr1, true);
      var variant115 = arg1;
      switch (variant115.tag) {
        case 'start': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 0, true);
          var variant82 = e;
          switch (variant82.tag) {
            case 'effect': {
              const e = variant82.val;
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
              const e = variant82.val;
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
              var variant74 = v23_2;
              switch (variant74.tag) {
                case 'begin': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 0, true);
                  var {scope: v26_0, tool: v26_1, runId: v26_2, stepId: v26_3, key: v26_4, fingerprint: v26_5, argsCanonical: v26_6, owner: v26_7, policy: v26_8 } = e;
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
                  var ptr33 = utf8Encode(v26_6, realloc0, memory0);
                  var len33 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 100, len33, true);
                  dataView(memory0).setInt32(ptr0 + 96, ptr33, true);
                  var ptr34 = utf8Encode(v26_7, realloc0, memory0);
                  var len34 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 108, len34, true);
                  dataView(memory0).setInt32(ptr0 + 104, ptr34, true);
                  var {class: v35_0, key: v35_1, reconcile: v35_2, leaseMs: v35_3, maxCallMs: v35_4, reconcileAfterMs: v35_5, escalateAfterMs: v35_6, retentionMs: v35_7 } = v26_8;
                  var val36 = v35_0;
                  let enum36;
                  switch (val36) {
                    case 'read-only': {
                      enum36 = 0;
                      break;
                    }
                    case 'overwriting-write': {
                      enum36 = 1;
                      break;
                    }
                    case 'accumulating-write': {
                      enum36 = 2;
                      break;
                    }
                    case 'irreversible-external': {
                      enum36 = 3;
                      break;
                    }
                    default: {
                      if ((v35_0) instanceof Error) {
                        console.error(v35_0);
                      }
                      
                      throw new TypeError(`"${val36}" is not one of the cases of effect-class`);
                    }
                  }
                  dataView(memory0).setInt8(ptr0 + 112, enum36, true);
                  var variant44 = v35_1;
                  if (variant44 === null || variant44=== undefined) {
                    dataView(memory0).setInt8(ptr0 + 116, 0, true);
                  } else {
                    const e = variant44;
                    dataView(memory0).setInt8(ptr0 + 116, 1, true);
                    var {only: v37_0, ignore: v37_1, identity: v37_2 } = e;
                    var variant40 = v37_0;
                    if (variant40 === null || variant40=== undefined) {
                      dataView(memory0).setInt8(ptr0 + 120, 0, true);
                    } else {
                      const e = variant40;
                      dataView(memory0).setInt8(ptr0 + 120, 1, true);
                      var vec39 = e;
                      var len39 = vec39.length;
                      var result39 = realloc0(0, 0, 4, len39 * 8);
                      for (let i = 0; i < vec39.length; i++) {
                        const e = vec39[i];
                        const base = result39 + i * 8;var ptr38 = utf8Encode(e, realloc0, memory0);
                        var len38 = utf8EncodedLen;
                        dataView(memory0).setInt32(base + 4, len38, true);
                        dataView(memory0).setInt32(base + 0, ptr38, true);
                      }
                      dataView(memory0).setInt32(ptr0 + 128, len39, true);
                      dataView(memory0).setInt32(ptr0 + 124, result39, true);
                    }
                    var vec42 = v37_1;
                    var len42 = vec42.length;
                    var result42 = realloc0(0, 0, 4, len42 * 8);
                    for (let i = 0; i < vec42.length; i++) {
                      const e = vec42[i];
                      const base = result42 + i * 8;var ptr41 = utf8Encode(e, realloc0, memory0);
                      var len41 = utf8EncodedLen;
                      dataView(memory0).setInt32(base + 4, len41, true);
                      dataView(memory0).setInt32(base + 0, ptr41, true);
                    }
                    dataView(memory0).setInt32(ptr0 + 136, len42, true);
                    dataView(memory0).setInt32(ptr0 + 132, result42, true);
                    var val43 = v37_2;
                    let enum43;
                    switch (val43) {
                      case 'step': {
                        enum43 = 0;
                        break;
                      }
                      case 'run': {
                        enum43 = 1;
                        break;
                      }
                      case 'scope': {
                        enum43 = 2;
                        break;
                      }
                      default: {
                        if ((v37_2) instanceof Error) {
                          console.error(v37_2);
                        }
                        
                        throw new TypeError(`"${val43}" is not one of the cases of key-identity`);
                      }
                    }
                    dataView(memory0).setInt8(ptr0 + 140, enum43, true);
                  }
                  var variant46 = v35_2;
                  switch (variant46.tag) {
                    case 'none': {
                      dataView(memory0).setInt8(ptr0 + 144, 0, true);
                      break;
                    }
                    case 'provider-idempotent': {
                      dataView(memory0).setInt8(ptr0 + 144, 1, true);
                      break;
                    }
                    case 'lookup': {
                      const e = variant46.val;
                      dataView(memory0).setInt8(ptr0 + 144, 2, true);
                      var ptr45 = utf8Encode(e, realloc0, memory0);
                      var len45 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 152, len45, true);
                      dataView(memory0).setInt32(ptr0 + 148, ptr45, true);
                      break;
                    }
                    case 'manual': {
                      dataView(memory0).setInt8(ptr0 + 144, 3, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant46.tag)}\` (received \`${variant46}\`) specified for \`ReconcilePath\``);
                    }
                  }
                  dataView(memory0).setBigInt64(ptr0 + 160, toUint64(v35_3), true);
                  dataView(memory0).setBigInt64(ptr0 + 168, toUint64(v35_4), true);
                  dataView(memory0).setBigInt64(ptr0 + 176, toUint64(v35_5), true);
                  dataView(memory0).setBigInt64(ptr0 + 184, toUint64(v35_6), true);
                  dataView(memory0).setBigInt64(ptr0 + 192, toUint64(v35_7), true);
                  break;
                }
                case 'heartbeat': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 1, true);
                  var {attempt: v47_0, owner: v47_1 } = e;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v47_0), true);
                  var ptr48 = utf8Encode(v47_1, realloc0, memory0);
                  var len48 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len48, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr48, true);
                  break;
                }
                case 'complete': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 2, true);
                  var {token: v49_0, resultJson: v49_1 } = e;
                  var {attempt: v50_0, owner: v50_1 } = v49_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v50_0), true);
                  var ptr51 = utf8Encode(v50_1, realloc0, memory0);
                  var len51 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len51, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr51, true);
                  var ptr52 = utf8Encode(v49_1, realloc0, memory0);
                  var len52 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len52, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr52, true);
                  break;
                }
                case 'fail-definite': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 3, true);
                  var {token: v53_0, reason: v53_1 } = e;
                  var {attempt: v54_0, owner: v54_1 } = v53_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v54_0), true);
                  var ptr55 = utf8Encode(v54_1, realloc0, memory0);
                  var len55 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len55, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr55, true);
                  var ptr56 = utf8Encode(v53_1, realloc0, memory0);
                  var len56 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len56, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr56, true);
                  break;
                }
                case 'fail-ambiguous': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 4, true);
                  var {token: v57_0, reason: v57_1 } = e;
                  var {attempt: v58_0, owner: v58_1 } = v57_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v58_0), true);
                  var ptr59 = utf8Encode(v58_1, realloc0, memory0);
                  var len59 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len59, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr59, true);
                  var ptr60 = utf8Encode(v57_1, realloc0, memory0);
                  var len60 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len60, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr60, true);
                  break;
                }
                case 'sweep': {
                  dataView(memory0).setInt8(ptr0 + 40, 5, true);
                  break;
                }
                case 'reconciled': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 6, true);
                  var {attempt: v61_0, verdict: v61_1 } = e;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v61_0), true);
                  var variant64 = v61_1;
                  switch (variant64.tag) {
                    case 'happened': {
                      const e = variant64.val;
                      dataView(memory0).setInt8(ptr0 + 52, 0, true);
                      var ptr62 = utf8Encode(e, realloc0, memory0);
                      var len62 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 60, len62, true);
                      dataView(memory0).setInt32(ptr0 + 56, ptr62, true);
                      break;
                    }
                    case 'not-happened': {
                      dataView(memory0).setInt8(ptr0 + 52, 1, true);
                      break;
                    }
                    case 'unknown': {
                      const e = variant64.val;
                      dataView(memory0).setInt8(ptr0 + 52, 2, true);
                      var ptr63 = utf8Encode(e, realloc0, memory0);
                      var len63 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 60, len63, true);
                      dataView(memory0).setInt32(ptr0 + 56, ptr63, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant64.tag)}\` (received \`${variant64}\`) specified for \`ReconcileVerdict\``);
                    }
                  }
                  break;
                }
                case 'resolve': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 7, true);
                  var {settlement: v65_0, by: v65_1, note: v65_2, seenVersion: v65_3 } = e;
                  var variant67 = v65_0;
                  switch (variant67.tag) {
                    case 'happened': {
                      const e = variant67.val;
                      dataView(memory0).setInt8(ptr0 + 48, 0, true);
                      var ptr66 = utf8Encode(e, realloc0, memory0);
                      var len66 = utf8EncodedLen;
                      dataView(memory0).setInt32(ptr0 + 56, len66, true);
                      dataView(memory0).setInt32(ptr0 + 52, ptr66, true);
                      break;
                    }
                    case 'not-happened': {
                      dataView(memory0).setInt8(ptr0 + 48, 1, true);
                      break;
                    }
                    default: {
                      throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant67.tag)}\` (received \`${variant67}\`) specified for \`Settlement\``);
                    }
                  }
                  var ptr68 = utf8Encode(v65_1, realloc0, memory0);
                  var len68 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len68, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr68, true);
                  var ptr69 = utf8Encode(v65_2, realloc0, memory0);
                  var len69 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 72, len69, true);
                  dataView(memory0).setInt32(ptr0 + 68, ptr69, true);
                  dataView(memory0).setBigInt64(ptr0 + 80, toUint64(v65_3), true);
                  break;
                }
                case 'purge': {
                  dataView(memory0).setInt8(ptr0 + 40, 8, true);
                  break;
                }
                case 'complete-unrecordable': {
                  const e = variant74.val;
                  dataView(memory0).setInt8(ptr0 + 40, 9, true);
                  var {token: v70_0, reason: v70_1 } = e;
                  var {attempt: v71_0, owner: v71_1 } = v70_0;
                  dataView(memory0).setInt32(ptr0 + 48, toUint32(v71_0), true);
                  var ptr72 = utf8Encode(v71_1, realloc0, memory0);
                  var len72 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 56, len72, true);
                  dataView(memory0).setInt32(ptr0 + 52, ptr72, true);
                  var ptr73 = utf8Encode(v70_1, realloc0, memory0);
                  var len73 = utf8EncodedLen;
                  dataView(memory0).setInt32(ptr0 + 64, len73, true);
                  dataView(memory0).setInt32(ptr0 + 60, ptr73, true);
                  break;
                }
                default: {
                  throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant74.tag)}\` (received \`${variant74}\`) specified for \`Event\``);
                }
              }
              break;
            }
            case 'tend': {
              const e = variant82.val;
              dataView(memory0).setInt8(ptr0 + 16, 2, true);
              var {scope: v75_0, key: v75_1, job: v75_2, hasReconciler: v75_3 } = e;
              var ptr76 = utf8Encode(v75_0, realloc0, memory0);
              var len76 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len76, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr76, true);
              var ptr77 = utf8Encode(v75_1, realloc0, memory0);
              var len77 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len77, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr77, true);
              var val78 = v75_2;
              let enum78;
              switch (val78) {
                case 'sweep': {
                  enum78 = 0;
                  break;
                }
                case 'purge': {
                  enum78 = 1;
                  break;
                }
                default: {
                  if ((v75_2) instanceof Error) {
                    console.error(v75_2);
                  }
                  
                  throw new TypeError(`"${val78}" is not one of the cases of tend-job`);
                }
              }
              dataView(memory0).setInt8(ptr0 + 40, enum78, true);
              dataView(memory0).setInt8(ptr0 + 41, v75_3 ? 1 : 0, true);
              break;
            }
            case 'wait': {
              const e = variant82.val;
              dataView(memory0).setInt8(ptr0 + 16, 3, true);
              var {scope: v79_0, key: v79_1, everyMs: v79_2, timeoutMs: v79_3 } = e;
              var ptr80 = utf8Encode(v79_0, realloc0, memory0);
              var len80 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 28, len80, true);
              dataView(memory0).setInt32(ptr0 + 24, ptr80, true);
              var ptr81 = utf8Encode(v79_1, realloc0, memory0);
              var len81 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 36, len81, true);
              dataView(memory0).setInt32(ptr0 + 32, ptr81, true);
              dataView(memory0).setBigInt64(ptr0 + 40, toUint64(v79_2), true);
              dataView(memory0).setBigInt64(ptr0 + 48, toUint64(v79_3), true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant82.tag)}\` (received \`${variant82}\`) specified for \`Command\``);
            }
          }
          break;
        }
        case 'row': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 1, true);
          var variant106 = e;
          if (variant106 === null || variant106=== undefined) {
            dataView(memory0).setInt8(ptr0 + 16, 0, true);
          } else {
            const e = variant106;
            dataView(memory0).setInt8(ptr0 + 16, 1, true);
            var {scope: v83_0, key: v83_1, tool: v83_2, runId: v83_3, stepId: v83_4, fingerprint: v83_5, argsCanonical: v83_6, state: v83_7, version: v83_8, attempt: v83_9, owner: v83_10, createdAt: v83_11, updatedAt: v83_12, leaseUntil: v83_13, inDoubtSince: v83_14, nextReconcileAt: v83_15, reconcileAttempts: v83_16, resultJson: v83_17, reason: v83_18, resolvedBy: v83_19, settlement: v83_20, reconcile: v83_21, leaseMs: v83_22, maxCallMs: v83_23, reconcileAfterMs: v83_24, escalateAfterMs: v83_25, retentionMs: v83_26, dueAt: v83_27 } = e;
            var ptr84 = utf8Encode(v83_0, realloc0, memory0);
            var len84 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 28, len84, true);
            dataView(memory0).setInt32(ptr0 + 24, ptr84, true);
            var ptr85 = utf8Encode(v83_1, realloc0, memory0);
            var len85 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 36, len85, true);
            dataView(memory0).setInt32(ptr0 + 32, ptr85, true);
            var ptr86 = utf8Encode(v83_2, realloc0, memory0);
            var len86 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 44, len86, true);
            dataView(memory0).setInt32(ptr0 + 40, ptr86, true);
            var ptr87 = utf8Encode(v83_3, realloc0, memory0);
            var len87 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 52, len87, true);
            dataView(memory0).setInt32(ptr0 + 48, ptr87, true);
            var ptr88 = utf8Encode(v83_4, realloc0, memory0);
            var len88 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 60, len88, true);
            dataView(memory0).setInt32(ptr0 + 56, ptr88, true);
            var ptr89 = utf8Encode(v83_5, realloc0, memory0);
            var len89 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 68, len89, true);
            dataView(memory0).setInt32(ptr0 + 64, ptr89, true);
            var ptr90 = utf8Encode(v83_6, realloc0, memory0);
            var len90 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 76, len90, true);
            dataView(memory0).setInt32(ptr0 + 72, ptr90, true);
            var val91 = v83_7;
            let enum91;
            switch (val91) {
              case 'pending': {
                enum91 = 0;
                break;
              }
              case 'done': {
                enum91 = 1;
                break;
              }
              case 'failed': {
                enum91 = 2;
                break;
              }
              case 'in-doubt': {
                enum91 = 3;
                break;
              }
              case 'escalated': {
                enum91 = 4;
                break;
              }
              default: {
                if ((v83_7) instanceof Error) {
                  console.error(v83_7);
                }
                
                throw new TypeError(`"${val91}" is not one of the cases of entry-state`);
              }
            }
            dataView(memory0).setInt8(ptr0 + 80, enum91, true);
            dataView(memory0).setBigInt64(ptr0 + 88, toUint64(v83_8), true);
            dataView(memory0).setInt32(ptr0 + 96, toUint32(v83_9), true);
            var ptr92 = utf8Encode(v83_10, realloc0, memory0);
            var len92 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 104, len92, true);
            dataView(memory0).setInt32(ptr0 + 100, ptr92, true);
            dataView(memory0).setBigInt64(ptr0 + 112, toUint64(v83_11), true);
            dataView(memory0).setBigInt64(ptr0 + 120, toUint64(v83_12), true);
            dataView(memory0).setBigInt64(ptr0 + 128, toUint64(v83_13), true);
            var variant93 = v83_14;
            if (variant93 === null || variant93=== undefined) {
              dataView(memory0).setInt8(ptr0 + 136, 0, true);
            } else {
              const e = variant93;
              dataView(memory0).setInt8(ptr0 + 136, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 144, toUint64(e), true);
            }
            var variant94 = v83_15;
            if (variant94 === null || variant94=== undefined) {
              dataView(memory0).setInt8(ptr0 + 152, 0, true);
            } else {
              const e = variant94;
              dataView(memory0).setInt8(ptr0 + 152, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 160, toUint64(e), true);
            }
            dataView(memory0).setInt32(ptr0 + 168, toUint32(v83_16), true);
            var variant96 = v83_17;
            if (variant96 === null || variant96=== undefined) {
              dataView(memory0).setInt8(ptr0 + 172, 0, true);
            } else {
              const e = variant96;
              dataView(memory0).setInt8(ptr0 + 172, 1, true);
              var ptr95 = utf8Encode(e, realloc0, memory0);
              var len95 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 180, len95, true);
              dataView(memory0).setInt32(ptr0 + 176, ptr95, true);
            }
            var variant98 = v83_18;
            if (variant98 === null || variant98=== undefined) {
              dataView(memory0).setInt8(ptr0 + 184, 0, true);
            } else {
              const e = variant98;
              dataView(memory0).setInt8(ptr0 + 184, 1, true);
              var ptr97 = utf8Encode(e, realloc0, memory0);
              var len97 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 192, len97, true);
              dataView(memory0).setInt32(ptr0 + 188, ptr97, true);
            }
            var variant100 = v83_19;
            if (variant100 === null || variant100=== undefined) {
              dataView(memory0).setInt8(ptr0 + 196, 0, true);
            } else {
              const e = variant100;
              dataView(memory0).setInt8(ptr0 + 196, 1, true);
              var ptr99 = utf8Encode(e, realloc0, memory0);
              var len99 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 204, len99, true);
              dataView(memory0).setInt32(ptr0 + 200, ptr99, true);
            }
            var variant102 = v83_20;
            if (variant102 === null || variant102=== undefined) {
              dataView(memory0).setInt8(ptr0 + 208, 0, true);
            } else {
              const e = variant102;
              dataView(memory0).setInt8(ptr0 + 208, 1, true);
              var ptr101 = utf8Encode(e, realloc0, memory0);
              var len101 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 216, len101, true);
              dataView(memory0).setInt32(ptr0 + 212, ptr101, true);
            }
            var variant104 = v83_21;
            switch (variant104.tag) {
              case 'none': {
                dataView(memory0).setInt8(ptr0 + 220, 0, true);
                break;
              }
              case 'provider-idempotent': {
                dataView(memory0).setInt8(ptr0 + 220, 1, true);
                break;
              }
              case 'lookup': {
                const e = variant104.val;
                dataView(memory0).setInt8(ptr0 + 220, 2, true);
                var ptr103 = utf8Encode(e, realloc0, memory0);
                var len103 = utf8EncodedLen;
                dataView(memory0).setInt32(ptr0 + 228, len103, true);
                dataView(memory0).setInt32(ptr0 + 224, ptr103, true);
                break;
              }
              case 'manual': {
                dataView(memory0).setInt8(ptr0 + 220, 3, true);
                break;
              }
              default: {
                throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant104.tag)}\` (received \`${variant104}\`) specified for \`ReconcilePath\``);
              }
            }
            dataView(memory0).setBigInt64(ptr0 + 232, toUint64(v83_22), true);
            dataView(memory0).setBigInt64(ptr0 + 240, toUint64(v83_23), true);
            dataView(memory0).setBigInt64(ptr0 + 248, toUint64(v83_24), true);
            dataView(memory0).setBigInt64(ptr0 + 256, toUint64(v83_25), true);
            dataView(memory0).setBigInt64(ptr0 + 264, toUint64(v83_26), true);
            var variant105 = v83_27;
            if (variant105 === null || variant105=== undefined) {
              dataView(memory0).setInt8(ptr0 + 272, 0, true);
            } else {
              const e = variant105;
              dataView(memory0).setInt8(ptr0 + 272, 1, true);
              dataView(memory0).setBigInt64(ptr0 + 280, toUint64(e), true);
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
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 4, true);
          var ptr107 = utf8Encode(e, realloc0, memory0);
          var len107 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len107, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr107, true);
          break;
        }
        case 'tool-returned': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 5, true);
          var ptr108 = utf8Encode(e, realloc0, memory0);
          var len108 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len108, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr108, true);
          break;
        }
        case 'tool-unencodable': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 6, true);
          var ptr109 = utf8Encode(e, realloc0, memory0);
          var len109 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 20, len109, true);
          dataView(memory0).setInt32(ptr0 + 16, ptr109, true);
          break;
        }
        case 'tool-failed': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 7, true);
          var {definite: v110_0, reason: v110_1 } = e;
          dataView(memory0).setInt8(ptr0 + 16, v110_0 ? 1 : 0, true);
          var ptr111 = utf8Encode(v110_1, realloc0, memory0);
          var len111 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 24, len111, true);
          dataView(memory0).setInt32(ptr0 + 20, ptr111, true);
          break;
        }
        case 'too-late': {
          dataView(memory0).setInt8(ptr0 + 8, 8, true);
          break;
        }
        case 'verdict': {
          const e = variant115.val;
          dataView(memory0).setInt8(ptr0 + 8, 9, true);
          var variant114 = e;
          switch (variant114.tag) {
            case 'happened': {
              const e = variant114.val;
              dataView(memory0).setInt8(ptr0 + 16, 0, true);
              var ptr112 = utf8Encode(e, realloc0, memory0);
              var len112 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 24, len112, true);
              dataView(memory0).setInt32(ptr0 + 20, ptr112, true);
              break;
            }
            case 'not-happened': {
              dataView(memory0).setInt8(ptr0 + 16, 1, true);
              break;
            }
            case 'unknown': {
              const e = variant114.val;
              dataView(memory0).setInt8(ptr0 + 16, 2, true);
              var ptr113 = utf8Encode(e, realloc0, memory0);
              var len113 = utf8EncodedLen;
              dataView(memory0).setInt32(ptr0 + 24, len113, true);
              dataView(memory0).setInt32(ptr0 + 20, ptr113, true);
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant114.tag)}\` (received \`${variant114}\`) specified for \`ReconcileVerdict\``);
            }
          }
          break;
        }
        case 'woke': {
          dataView(memory0).setInt8(ptr0 + 8, 10, true);
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant115.tag)}\` (received \`${variant115}\`) specified for \`Input\``);
        }
      }
      dataView(memory0).setBigInt64(ptr0 + 288, toUint64(arg2), true);
      const ret = effect010Run(ptr0);
      let variant231;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr116 = dataView(memory0).getInt32(ret + 8, true);
          var len116 = dataView(memory0).getInt32(ret + 12, true);
          var result116 = new Uint8Array(memory0.buffer.slice(ptr116, ptr116 + len116 * 1));
          let variant119;
          switch (dataView(memory0).getUint8(ret + 16, true)) {
            case 0: {
              variant119 = undefined;
              break;
            }
            case 1: {
              var ptr117 = dataView(memory0).getInt32(ret + 20, true);
              var len117 = dataView(memory0).getInt32(ret + 24, true);
              var result117 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr117, len117));
              var ptr118 = dataView(memory0).getInt32(ret + 28, true);
              var len118 = dataView(memory0).getInt32(ret + 32, true);
              var result118 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr118, len118));
              variant119 = {
                scope: result117,
                key: result118,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant143;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant143 = undefined;
              break;
            }
            case 1: {
              let enum120;
              switch (dataView(memory0).getUint8(ret + 48, true)) {
                case 0: {
                  enum120 = 'insert';
                  break;
                }
                case 1: {
                  enum120 = 'update';
                  break;
                }
                case 2: {
                  enum120 = 'delete';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for WriteOp');
                }
              }
              var ptr121 = dataView(memory0).getInt32(ret + 56, true);
              var len121 = dataView(memory0).getInt32(ret + 60, true);
              var result121 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr121, len121));
              var ptr122 = dataView(memory0).getInt32(ret + 64, true);
              var len122 = dataView(memory0).getInt32(ret + 68, true);
              var result122 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr122, len122));
              var ptr123 = dataView(memory0).getInt32(ret + 72, true);
              var len123 = dataView(memory0).getInt32(ret + 76, true);
              var result123 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr123, len123));
              var ptr124 = dataView(memory0).getInt32(ret + 80, true);
              var len124 = dataView(memory0).getInt32(ret + 84, true);
              var result124 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr124, len124));
              var ptr125 = dataView(memory0).getInt32(ret + 88, true);
              var len125 = dataView(memory0).getInt32(ret + 92, true);
              var result125 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr125, len125));
              var ptr126 = dataView(memory0).getInt32(ret + 96, true);
              var len126 = dataView(memory0).getInt32(ret + 100, true);
              var result126 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr126, len126));
              var ptr127 = dataView(memory0).getInt32(ret + 104, true);
              var len127 = dataView(memory0).getInt32(ret + 108, true);
              var result127 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr127, len127));
              let enum128;
              switch (dataView(memory0).getUint8(ret + 112, true)) {
                case 0: {
                  enum128 = 'pending';
                  break;
                }
                case 1: {
                  enum128 = 'done';
                  break;
                }
                case 2: {
                  enum128 = 'failed';
                  break;
                }
                case 3: {
                  enum128 = 'in-doubt';
                  break;
                }
                case 4: {
                  enum128 = 'escalated';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for EntryState');
                }
              }
              var ptr129 = dataView(memory0).getInt32(ret + 132, true);
              var len129 = dataView(memory0).getInt32(ret + 136, true);
              var result129 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr129, len129));
              let variant130;
              switch (dataView(memory0).getUint8(ret + 168, true)) {
                case 0: {
                  variant130 = undefined;
                  break;
                }
                case 1: {
                  variant130 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 176, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant131;
              switch (dataView(memory0).getUint8(ret + 184, true)) {
                case 0: {
                  variant131 = undefined;
                  break;
                }
                case 1: {
                  variant131 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 192, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant133;
              switch (dataView(memory0).getUint8(ret + 204, true)) {
                case 0: {
                  variant133 = undefined;
                  break;
                }
                case 1: {
                  var ptr132 = dataView(memory0).getInt32(ret + 208, true);
                  var len132 = dataView(memory0).getInt32(ret + 212, true);
                  var result132 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr132, len132));
                  variant133 = result132;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant135;
              switch (dataView(memory0).getUint8(ret + 216, true)) {
                case 0: {
                  variant135 = undefined;
                  break;
                }
                case 1: {
                  var ptr134 = dataView(memory0).getInt32(ret + 220, true);
                  var len134 = dataView(memory0).getInt32(ret + 224, true);
                  var result134 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr134, len134));
                  variant135 = result134;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant137;
              switch (dataView(memory0).getUint8(ret + 228, true)) {
                case 0: {
                  variant137 = undefined;
                  break;
                }
                case 1: {
                  var ptr136 = dataView(memory0).getInt32(ret + 232, true);
                  var len136 = dataView(memory0).getInt32(ret + 236, true);
                  var result136 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr136, len136));
                  variant137 = result136;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant139;
              switch (dataView(memory0).getUint8(ret + 240, true)) {
                case 0: {
                  variant139 = undefined;
                  break;
                }
                case 1: {
                  var ptr138 = dataView(memory0).getInt32(ret + 244, true);
                  var len138 = dataView(memory0).getInt32(ret + 248, true);
                  var result138 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr138, len138));
                  variant139 = result138;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant141;
              switch (dataView(memory0).getUint8(ret + 252, true)) {
                case 0: {
                  variant141= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant141= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr140 = dataView(memory0).getInt32(ret + 256, true);
                  var len140 = dataView(memory0).getInt32(ret + 260, true);
                  var result140 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr140, len140));
                  variant141= {
                    tag: 'lookup',
                    val: result140
                  };
                  break;
                }
                case 3: {
                  variant141= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              let variant142;
              switch (dataView(memory0).getUint8(ret + 304, true)) {
                case 0: {
                  variant142 = undefined;
                  break;
                }
                case 1: {
                  variant142 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 312, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant143 = {
                op: enum120,
                row: {
                  scope: result121,
                  key: result122,
                  tool: result123,
                  runId: result124,
                  stepId: result125,
                  fingerprint: result126,
                  argsCanonical: result127,
                  state: enum128,
                  version: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                  attempt: dataView(memory0).getInt32(ret + 128, true) >>> 0,
                  owner: result129,
                  createdAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                  updatedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                  leaseUntil: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 160, true)),
                  inDoubtSince: variant130,
                  nextReconcileAt: variant131,
                  reconcileAttempts: dataView(memory0).getInt32(ret + 200, true) >>> 0,
                  resultJson: variant133,
                  reason: variant135,
                  resolvedBy: variant137,
                  settlement: variant139,
                  reconcile: variant141,
                  leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 264, true)),
                  maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 272, true)),
                  reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 280, true)),
                  escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 288, true)),
                  retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 296, true)),
                  dueAt: variant142,
                },
                expectedVersion: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 320, true)),
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var len149 = dataView(memory0).getInt32(ret + 332, true);
          var base149 = dataView(memory0).getInt32(ret + 328, true);
          var result149 = [];
          for (let i = 0; i < len149; i++) {
            const base = base149 + i * 36;
            let enum144;
            switch (dataView(memory0).getUint8(base + 0, true)) {
              case 0: {
                enum144 = 'claimed';
                break;
              }
              case 1: {
                enum144 = 'executed';
                break;
              }
              case 2: {
                enum144 = 'replayed';
                break;
              }
              case 3: {
                enum144 = 'conflict';
                break;
              }
              case 4: {
                enum144 = 'in-doubt';
                break;
              }
              case 5: {
                enum144 = 'reconciled';
                break;
              }
              case 6: {
                enum144 = 'escalated';
                break;
              }
              case 7: {
                enum144 = 'resolved';
                break;
              }
              default: {
                throw new TypeError('invalid discriminant specified for NoticeKind');
              }
            }
            var ptr145 = dataView(memory0).getInt32(base + 4, true);
            var len145 = dataView(memory0).getInt32(base + 8, true);
            var result145 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr145, len145));
            var ptr146 = dataView(memory0).getInt32(base + 12, true);
            var len146 = dataView(memory0).getInt32(base + 16, true);
            var result146 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr146, len146));
            var ptr147 = dataView(memory0).getInt32(base + 20, true);
            var len147 = dataView(memory0).getInt32(base + 24, true);
            var result147 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr147, len147));
            var ptr148 = dataView(memory0).getInt32(base + 28, true);
            var len148 = dataView(memory0).getInt32(base + 32, true);
            var result148 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr148, len148));
            result149.push({
              kind: enum144,
              scope: result145,
              key: result146,
              tool: result147,
              detail: result148,
            });
          }
          let variant223;
          switch (dataView(memory0).getUint8(ret + 336, true)) {
            case 0: {
              variant223= {
                tag: 'report',
              };
              break;
            }
            case 1: {
              var ptr150 = dataView(memory0).getInt32(ret + 344, true);
              var len150 = dataView(memory0).getInt32(ret + 348, true);
              var result150 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr150, len150));
              var ptr151 = dataView(memory0).getInt32(ret + 352, true);
              var len151 = dataView(memory0).getInt32(ret + 356, true);
              var result151 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr151, len151));
              let variant153;
              switch (dataView(memory0).getUint8(ret + 360, true)) {
                case 0: {
                  variant153 = undefined;
                  break;
                }
                case 1: {
                  var ptr152 = dataView(memory0).getInt32(ret + 368, true);
                  var len152 = dataView(memory0).getInt32(ret + 372, true);
                  var result152 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr152, len152));
                  variant153 = {
                    attempt: dataView(memory0).getInt32(ret + 364, true) >>> 0,
                    owner: result152,
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant154;
              switch (dataView(memory0).getUint8(ret + 376, true)) {
                case 0: {
                  variant154 = undefined;
                  break;
                }
                case 1: {
                  variant154 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 384, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant155;
              switch (dataView(memory0).getUint8(ret + 392, true)) {
                case 0: {
                  variant155 = undefined;
                  break;
                }
                case 1: {
                  variant155 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 400, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant156;
              switch (dataView(memory0).getUint8(ret + 408, true)) {
                case 0: {
                  variant156 = undefined;
                  break;
                }
                case 1: {
                  variant156 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 416, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              variant223= {
                tag: 'call-tool',
                val: {
                  scope: result150,
                  key: result151,
                  token: variant153,
                  notAfter: variant154,
                  deadline: variant155,
                  heartbeatMs: variant156,
                }
              };
              break;
            }
            case 2: {
              var ptr157 = dataView(memory0).getInt32(ret + 344, true);
              var len157 = dataView(memory0).getInt32(ret + 348, true);
              var result157 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr157, len157));
              var ptr158 = dataView(memory0).getInt32(ret + 352, true);
              var len158 = dataView(memory0).getInt32(ret + 356, true);
              var result158 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr158, len158));
              var ptr159 = dataView(memory0).getInt32(ret + 360, true);
              var len159 = dataView(memory0).getInt32(ret + 364, true);
              var result159 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr159, len159));
              var ptr160 = dataView(memory0).getInt32(ret + 368, true);
              var len160 = dataView(memory0).getInt32(ret + 372, true);
              var result160 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr160, len160));
              let variant162;
              switch (dataView(memory0).getUint8(ret + 380, true)) {
                case 0: {
                  variant162= {
                    tag: 'none',
                  };
                  break;
                }
                case 1: {
                  variant162= {
                    tag: 'provider-idempotent',
                  };
                  break;
                }
                case 2: {
                  var ptr161 = dataView(memory0).getInt32(ret + 384, true);
                  var len161 = dataView(memory0).getInt32(ret + 388, true);
                  var result161 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr161, len161));
                  variant162= {
                    tag: 'lookup',
                    val: result161
                  };
                  break;
                }
                case 3: {
                  variant162= {
                    tag: 'manual',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for ReconcilePath');
                }
              }
              variant223= {
                tag: 'call-reconciler',
                val: {
                  scope: result157,
                  key: result158,
                  tool: result159,
                  argsCanonical: result160,
                  attempt: dataView(memory0).getInt32(ret + 376, true) >>> 0,
                  path: variant162,
                  inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 392, true)),
                  escalateAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 400, true)),
                }
              };
              break;
            }
            case 3: {
              var ptr163 = dataView(memory0).getInt32(ret + 344, true);
              var len163 = dataView(memory0).getInt32(ret + 348, true);
              var result163 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr163, len163));
              variant223= {
                tag: 'recall-tool',
                val: result163
              };
              break;
            }
            case 4: {
              variant223= {
                tag: 'sleep-until',
                val: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 344, true))
              };
              break;
            }
            case 5: {
              let variant202;
              switch (dataView(memory0).getUint8(ret + 344, true)) {
                case 0: {
                  var ptr164 = dataView(memory0).getInt32(ret + 352, true);
                  var len164 = dataView(memory0).getInt32(ret + 356, true);
                  var result164 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr164, len164));
                  let variant166;
                  switch (dataView(memory0).getUint8(ret + 360, true)) {
                    case 0: {
                      variant166= {
                        tag: 'tool-value',
                      };
                      break;
                    }
                    case 1: {
                      var ptr165 = dataView(memory0).getInt32(ret + 364, true);
                      var len165 = dataView(memory0).getInt32(ret + 368, true);
                      var result165 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr165, len165));
                      variant166= {
                        tag: 'recorded',
                        val: result165
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for ResultSource');
                    }
                  }
                  var bool167 = dataView(memory0).getUint8(ret + 372, true);
                  var bool168 = dataView(memory0).getUint8(ret + 373, true);
                  variant202= {
                    tag: 'effect',
                    val: {
                      key: result164,
                      source: variant166,
                      replayed: bool167 == 0 ? false : (bool167 == 1 ? true : throwInvalidBool()),
                      reconciled: bool168 == 0 ? false : (bool168 == 1 ? true : throwInvalidBool()),
                    }
                  };
                  break;
                }
                case 1: {
                  let variant190;
                  switch (dataView(memory0).getUint8(ret + 352, true)) {
                    case 0: {
                      var ptr169 = dataView(memory0).getInt32(ret + 364, true);
                      var len169 = dataView(memory0).getInt32(ret + 368, true);
                      var result169 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr169, len169));
                      variant190= {
                        tag: 'execute',
                        val: {
                          attempt: dataView(memory0).getInt32(ret + 360, true) >>> 0,
                          owner: result169,
                        }
                      };
                      break;
                    }
                    case 1: {
                      var ptr170 = dataView(memory0).getInt32(ret + 360, true);
                      var len170 = dataView(memory0).getInt32(ret + 364, true);
                      var result170 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr170, len170));
                      variant190= {
                        tag: 'replay',
                        val: {
                          resultJson: result170,
                          attempt: dataView(memory0).getInt32(ret + 368, true) >>> 0,
                          recordedAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true)),
                        }
                      };
                      break;
                    }
                    case 2: {
                      var ptr171 = dataView(memory0).getInt32(ret + 360, true);
                      var len171 = dataView(memory0).getInt32(ret + 364, true);
                      var result171 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr171, len171));
                      let enum172;
                      switch (dataView(memory0).getUint8(ret + 368, true)) {
                        case 0: {
                          enum172 = 'pending';
                          break;
                        }
                        case 1: {
                          enum172 = 'done';
                          break;
                        }
                        case 2: {
                          enum172 = 'failed';
                          break;
                        }
                        case 3: {
                          enum172 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum172 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant190= {
                        tag: 'in-progress',
                        val: {
                          owner: result171,
                          state: enum172,
                          retryAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true)),
                        }
                      };
                      break;
                    }
                    case 3: {
                      var ptr173 = dataView(memory0).getInt32(ret + 360, true);
                      var len173 = dataView(memory0).getInt32(ret + 364, true);
                      var result173 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr173, len173));
                      var ptr174 = dataView(memory0).getInt32(ret + 368, true);
                      var len174 = dataView(memory0).getInt32(ret + 372, true);
                      var result174 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr174, len174));
                      var ptr175 = dataView(memory0).getInt32(ret + 376, true);
                      var len175 = dataView(memory0).getInt32(ret + 380, true);
                      var result175 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr175, len175));
                      var ptr176 = dataView(memory0).getInt32(ret + 384, true);
                      var len176 = dataView(memory0).getInt32(ret + 388, true);
                      var result176 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr176, len176));
                      let variant178;
                      switch (dataView(memory0).getUint8(ret + 396, true)) {
                        case 0: {
                          variant178= {
                            tag: 'none',
                          };
                          break;
                        }
                        case 1: {
                          variant178= {
                            tag: 'provider-idempotent',
                          };
                          break;
                        }
                        case 2: {
                          var ptr177 = dataView(memory0).getInt32(ret + 400, true);
                          var len177 = dataView(memory0).getInt32(ret + 404, true);
                          var result177 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr177, len177));
                          variant178= {
                            tag: 'lookup',
                            val: result177
                          };
                          break;
                        }
                        case 3: {
                          variant178= {
                            tag: 'manual',
                          };
                          break;
                        }
                        default: {
                          throw new TypeError('invalid variant discriminant for ReconcilePath');
                        }
                      }
                      variant190= {
                        tag: 'reconcile',
                        val: {
                          scope: result173,
                          key: result174,
                          tool: result175,
                          argsCanonical: result176,
                          attempt: dataView(memory0).getInt32(ret + 392, true) >>> 0,
                          path: variant178,
                          inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 408, true)),
                          escalateAt: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 416, true)),
                        }
                      };
                      break;
                    }
                    case 4: {
                      var ptr179 = dataView(memory0).getInt32(ret + 360, true);
                      var len179 = dataView(memory0).getInt32(ret + 364, true);
                      var result179 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr179, len179));
                      var ptr180 = dataView(memory0).getInt32(ret + 368, true);
                      var len180 = dataView(memory0).getInt32(ret + 372, true);
                      var result180 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr180, len180));
                      var ptr181 = dataView(memory0).getInt32(ret + 376, true);
                      var len181 = dataView(memory0).getInt32(ret + 380, true);
                      var result181 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr181, len181));
                      var ptr182 = dataView(memory0).getInt32(ret + 388, true);
                      var len182 = dataView(memory0).getInt32(ret + 392, true);
                      var result182 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr182, len182));
                      variant190= {
                        tag: 'escalated',
                        val: {
                          scope: result179,
                          key: result180,
                          tool: result181,
                          attempt: dataView(memory0).getInt32(ret + 384, true) >>> 0,
                          reason: result182,
                          inDoubtSince: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 400, true)),
                        }
                      };
                      break;
                    }
                    case 5: {
                      var ptr183 = dataView(memory0).getInt32(ret + 360, true);
                      var len183 = dataView(memory0).getInt32(ret + 364, true);
                      var result183 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr183, len183));
                      var ptr184 = dataView(memory0).getInt32(ret + 368, true);
                      var len184 = dataView(memory0).getInt32(ret + 372, true);
                      var result184 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr184, len184));
                      var ptr185 = dataView(memory0).getInt32(ret + 376, true);
                      var len185 = dataView(memory0).getInt32(ret + 380, true);
                      var result185 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr185, len185));
                      var ptr186 = dataView(memory0).getInt32(ret + 384, true);
                      var len186 = dataView(memory0).getInt32(ret + 388, true);
                      var result186 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr186, len186));
                      variant190= {
                        tag: 'conflict',
                        val: {
                          key: result183,
                          pointer: result184,
                          storedFingerprint: result185,
                          givenFingerprint: result186,
                        }
                      };
                      break;
                    }
                    case 6: {
                      variant190= {
                        tag: 'pass-through',
                      };
                      break;
                    }
                    case 7: {
                      let enum187;
                      switch (dataView(memory0).getUint8(ret + 360, true)) {
                        case 0: {
                          enum187 = 'pending';
                          break;
                        }
                        case 1: {
                          enum187 = 'done';
                          break;
                        }
                        case 2: {
                          enum187 = 'failed';
                          break;
                        }
                        case 3: {
                          enum187 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum187 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant190= {
                        tag: 'recorded',
                        val: enum187
                      };
                      break;
                    }
                    case 8: {
                      var ptr188 = dataView(memory0).getInt32(ret + 360, true);
                      var len188 = dataView(memory0).getInt32(ret + 364, true);
                      var result188 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr188, len188));
                      variant190= {
                        tag: 'settled',
                        val: result188
                      };
                      break;
                    }
                    case 9: {
                      variant190= {
                        tag: 'purged',
                      };
                      break;
                    }
                    case 10: {
                      let variant189;
                      switch (dataView(memory0).getUint8(ret + 360, true)) {
                        case 0: {
                          variant189 = undefined;
                          break;
                        }
                        case 1: {
                          variant189 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 368, true));
                          break;
                        }
                        default: {
                          throw new TypeError('invalid variant discriminant for option');
                        }
                      }
                      variant190= {
                        tag: 'idle',
                        val: variant189
                      };
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for Outcome');
                    }
                  }
                  variant202= {
                    tag: 'event',
                    val: variant190
                  };
                  break;
                }
                case 2: {
                  var ptr191 = dataView(memory0).getInt32(ret + 352, true);
                  var len191 = dataView(memory0).getInt32(ret + 356, true);
                  var result191 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr191, len191));
                  var ptr192 = dataView(memory0).getInt32(ret + 360, true);
                  var len192 = dataView(memory0).getInt32(ret + 364, true);
                  var result192 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr192, len192));
                  var ptr193 = dataView(memory0).getInt32(ret + 368, true);
                  var len193 = dataView(memory0).getInt32(ret + 372, true);
                  var result193 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr193, len193));
                  var bool194 = dataView(memory0).getUint8(ret + 376, true);
                  let variant196;
                  switch (dataView(memory0).getUint8(ret + 377, true)) {
                    case 0: {
                      variant196 = undefined;
                      break;
                    }
                    case 1: {
                      let enum195;
                      switch (dataView(memory0).getUint8(ret + 378, true)) {
                        case 0: {
                          enum195 = 'happened';
                          break;
                        }
                        case 1: {
                          enum195 = 'not-happened';
                          break;
                        }
                        case 2: {
                          enum195 = 'unknown';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for VerdictKind');
                        }
                      }
                      variant196 = enum195;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  let variant198;
                  switch (dataView(memory0).getUint8(ret + 380, true)) {
                    case 0: {
                      variant198 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr197 = dataView(memory0).getInt32(ret + 384, true);
                      var len197 = dataView(memory0).getInt32(ret + 388, true);
                      var result197 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr197, len197));
                      variant198 = result197;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  var bool199 = dataView(memory0).getUint8(ret + 392, true);
                  let variant201;
                  switch (dataView(memory0).getUint8(ret + 396, true)) {
                    case 0: {
                      variant201 = undefined;
                      break;
                    }
                    case 1: {
                      var ptr200 = dataView(memory0).getInt32(ret + 400, true);
                      var len200 = dataView(memory0).getInt32(ret + 404, true);
                      var result200 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr200, len200));
                      variant201 = result200;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  variant202= {
                    tag: 'tended',
                    val: {
                      scope: result191,
                      key: result192,
                      tool: result193,
                      leaseExpired: bool194 == 0 ? false : (bool194 == 1 ? true : throwInvalidBool()),
                      reconciled: variant196,
                      escalated: variant198,
                      purged: bool199 == 0 ? false : (bool199 == 1 ? true : throwInvalidBool()),
                      skipped: variant201,
                    }
                  };
                  break;
                }
                case 3: {
                  variant202= {
                    tag: 'waited',
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for Finish');
                }
              }
              variant223= {
                tag: 'finish',
                val: variant202
              };
              break;
            }
            case 6: {
              let variant222;
              switch (dataView(memory0).getUint8(ret + 344, true)) {
                case 0: {
                  var ptr203 = dataView(memory0).getInt32(ret + 352, true);
                  var len203 = dataView(memory0).getInt32(ret + 356, true);
                  var result203 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr203, len203));
                  var ptr204 = dataView(memory0).getInt32(ret + 360, true);
                  var len204 = dataView(memory0).getInt32(ret + 364, true);
                  var result204 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr204, len204));
                  var ptr205 = dataView(memory0).getInt32(ret + 368, true);
                  var len205 = dataView(memory0).getInt32(ret + 372, true);
                  var result205 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr205, len205));
                  var ptr206 = dataView(memory0).getInt32(ret + 376, true);
                  var len206 = dataView(memory0).getInt32(ret + 380, true);
                  var result206 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr206, len206));
                  variant222= {
                    tag: 'conflict',
                    val: {
                      key: result203,
                      pointer: result204,
                      storedFingerprint: result205,
                      givenFingerprint: result206,
                    }
                  };
                  break;
                }
                case 1: {
                  var ptr207 = dataView(memory0).getInt32(ret + 352, true);
                  var len207 = dataView(memory0).getInt32(ret + 356, true);
                  var result207 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr207, len207));
                  var ptr208 = dataView(memory0).getInt32(ret + 360, true);
                  var len208 = dataView(memory0).getInt32(ret + 364, true);
                  var result208 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr208, len208));
                  let enum209;
                  switch (dataView(memory0).getUint8(ret + 368, true)) {
                    case 0: {
                      enum209 = 'pending';
                      break;
                    }
                    case 1: {
                      enum209 = 'done';
                      break;
                    }
                    case 2: {
                      enum209 = 'failed';
                      break;
                    }
                    case 3: {
                      enum209 = 'in-doubt';
                      break;
                    }
                    case 4: {
                      enum209 = 'escalated';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for EntryState');
                    }
                  }
                  variant222= {
                    tag: 'in-progress',
                    val: {
                      key: result207,
                      owner: result208,
                      state: enum209,
                      retryAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 376, true)),
                    }
                  };
                  break;
                }
                case 2: {
                  var ptr210 = dataView(memory0).getInt32(ret + 352, true);
                  var len210 = dataView(memory0).getInt32(ret + 356, true);
                  var result210 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr210, len210));
                  var ptr211 = dataView(memory0).getInt32(ret + 360, true);
                  var len211 = dataView(memory0).getInt32(ret + 364, true);
                  var result211 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr211, len211));
                  variant222= {
                    tag: 'in-doubt',
                    val: {
                      key: result210,
                      reason: result211,
                    }
                  };
                  break;
                }
                case 3: {
                  var ptr212 = dataView(memory0).getInt32(ret + 352, true);
                  var len212 = dataView(memory0).getInt32(ret + 356, true);
                  var result212 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr212, len212));
                  var ptr213 = dataView(memory0).getInt32(ret + 360, true);
                  var len213 = dataView(memory0).getInt32(ret + 364, true);
                  var result213 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr213, len213));
                  variant222= {
                    tag: 'escalated',
                    val: {
                      key: result212,
                      reason: result213,
                    }
                  };
                  break;
                }
                case 4: {
                  var ptr214 = dataView(memory0).getInt32(ret + 352, true);
                  var len214 = dataView(memory0).getInt32(ret + 356, true);
                  var result214 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr214, len214));
                  variant222= {
                    tag: 'tool-failed',
                    val: result214
                  };
                  break;
                }
                case 5: {
                  var ptr215 = dataView(memory0).getInt32(ret + 352, true);
                  var len215 = dataView(memory0).getInt32(ret + 356, true);
                  var result215 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr215, len215));
                  var ptr216 = dataView(memory0).getInt32(ret + 360, true);
                  var len216 = dataView(memory0).getInt32(ret + 364, true);
                  var result216 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr216, len216));
                  variant222= {
                    tag: 'result-not-recorded',
                    val: {
                      key: result215,
                      reason: result216,
                    }
                  };
                  break;
                }
                case 6: {
                  var ptr217 = dataView(memory0).getInt32(ret + 352, true);
                  var len217 = dataView(memory0).getInt32(ret + 356, true);
                  var result217 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr217, len217));
                  variant222= {
                    tag: 'storage',
                    val: result217
                  };
                  break;
                }
                case 7: {
                  let enum218;
                  switch (dataView(memory0).getUint8(ret + 352, true)) {
                    case 0: {
                      enum218 = 'not-found';
                      break;
                    }
                    case 1: {
                      enum218 = 'stale-token';
                      break;
                    }
                    case 2: {
                      enum218 = 'invalid-state';
                      break;
                    }
                    case 3: {
                      enum218 = 'already-settled';
                      break;
                    }
                    case 4: {
                      enum218 = 'retention-not-reached';
                      break;
                    }
                    case 5: {
                      enum218 = 'invalid-request';
                      break;
                    }
                    case 6: {
                      enum218 = 'changed';
                      break;
                    }
                    default: {
                      throw new TypeError('invalid discriminant specified for LedgerErrorKind');
                    }
                  }
                  let variant220;
                  switch (dataView(memory0).getUint8(ret + 353, true)) {
                    case 0: {
                      variant220 = undefined;
                      break;
                    }
                    case 1: {
                      let enum219;
                      switch (dataView(memory0).getUint8(ret + 354, true)) {
                        case 0: {
                          enum219 = 'pending';
                          break;
                        }
                        case 1: {
                          enum219 = 'done';
                          break;
                        }
                        case 2: {
                          enum219 = 'failed';
                          break;
                        }
                        case 3: {
                          enum219 = 'in-doubt';
                          break;
                        }
                        case 4: {
                          enum219 = 'escalated';
                          break;
                        }
                        default: {
                          throw new TypeError('invalid discriminant specified for EntryState');
                        }
                      }
                      variant220 = enum219;
                      break;
                    }
                    default: {
                      throw new TypeError('invalid variant discriminant for option');
                    }
                  }
                  var ptr221 = dataView(memory0).getInt32(ret + 356, true);
                  var len221 = dataView(memory0).getInt32(ret + 360, true);
                  var result221 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr221, len221));
                  variant222= {
                    tag: 'ledger',
                    val: {
                      kind: enum218,
                      state: variant220,
                      message: result221,
                    }
                  };
                  break;
                }
                case 8: {
                  variant222= {
                    tag: 'contention',
                    val: dataView(memory0).getInt32(ret + 352, true) >>> 0
                  };
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for EffectError');
                }
              }
              variant223= {
                tag: 'raise',
                val: variant222
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Action');
            }
          }
          variant231= {
            tag: 'ok',
            val: {
              state: result116,
              read: variant119,
              write: variant143,
              events: result149,
              action: variant223,
            }
          };
          break;
        }
        case 1: {
          let enum224;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum224 = 'invalid-args';
              break;
            }
            case 1: {
              enum224 = 'invalid-pointer';
              break;
            }
            case 2: {
              enum224 = 'missing-member';
              break;
            }
            case 3: {
              enum224 = 'pointer-into-array';
              break;
            }
            case 4: {
              enum224 = 'empty-field';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyErrorKind');
            }
          }
          let variant226;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant226 = undefined;
              break;
            }
            case 1: {
              var ptr225 = dataView(memory0).getInt32(ret + 16, true);
              var len225 = dataView(memory0).getInt32(ret + 20, true);
              var result225 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr225, len225));
              variant226 = result225;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant229;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant229 = undefined;
              break;
            }
            case 1: {
              let enum227;
              switch (dataView(memory0).getUint8(ret + 32, true)) {
                case 0: {
                  enum227 = 'syntax';
                  break;
                }
                case 1: {
                  enum227 = 'invalid-utf8';
                  break;
                }
                case 2: {
                  enum227 = 'lone-surrogate';
                  break;
                }
                case 3: {
                  enum227 = 'duplicate-key';
                  break;
                }
                case 4: {
                  enum227 = 'number-overflow';
                  break;
                }
                case 5: {
                  enum227 = 'inexact-integer';
                  break;
                }
                case 6: {
                  enum227 = 'too-deep';
                  break;
                }
                case 7: {
                  enum227 = 'too-large';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for CanonErrorKind');
                }
              }
              var ptr228 = dataView(memory0).getInt32(ret + 56, true);
              var len228 = dataView(memory0).getInt32(ret + 60, true);
              var result228 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr228, len228));
              variant229 = {
                kind: enum227,
                offset: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 40, true)),
                line: dataView(memory0).getInt32(ret + 48, true) >>> 0,
                column: dataView(memory0).getInt32(ret + 52, true) >>> 0,
                message: result228,
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr230 = dataView(memory0).getInt32(ret + 64, true);
          var len230 = dataView(memory0).getInt32(ret + 68, true);
          var result230 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr230, len230));
          variant231= {
            tag: 'err',
            val: {
              kind: enum224,
              at: variant226,
              canon: variant229,
              message: result230,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant231;
      postReturn11(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let provider010Admit;
    
    function admit(arg0, arg1, arg2) {
      var ptr0 = realloc0(0, 0, 4, 80);
      var ptr1 = utf8Encode(arg0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len1, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr1, true);
      var {tool: v2_0, policyJson: v2_1, required: v2_2 } = arg1;
      var ptr3 = utf8Encode(v2_0, realloc0, memory0);
      var len3 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 12, len3, true);
      dataView(memory0).setInt32(ptr0 + 8, ptr3, true);
      var ptr4 = utf8Encode(v2_1, realloc0, memory0);
      var len4 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 20, len4, true);
      dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      dataView(memory0).setInt8(ptr0 + 24, v2_2 ? 1 : 0, true);
      var variant18 = arg2;
      switch (variant18.tag) {
        case 'http': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 28, 0, true);
          var {method: v5_0, path: v5_1, query: v5_2, contentType: v5_3, body: v5_4, keys: v5_5 } = e;
          var ptr6 = utf8Encode(v5_0, realloc0, memory0);
          var len6 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 36, len6, true);
          dataView(memory0).setInt32(ptr0 + 32, ptr6, true);
          var ptr7 = utf8Encode(v5_1, realloc0, memory0);
          var len7 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 44, len7, true);
          dataView(memory0).setInt32(ptr0 + 40, ptr7, true);
          var ptr8 = utf8Encode(v5_2, realloc0, memory0);
          var len8 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 52, len8, true);
          dataView(memory0).setInt32(ptr0 + 48, ptr8, true);
          var ptr9 = utf8Encode(v5_3, realloc0, memory0);
          var len9 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 60, len9, true);
          dataView(memory0).setInt32(ptr0 + 56, ptr9, true);
          var val10 = v5_4;
          var len10 = val10.byteLength;
          var ptr10 = realloc0(0, 0, 1, len10 * 1);
          var src10 = new Uint8Array(val10.buffer || val10, val10.byteOffset, len10 * 1);
          (new Uint8Array(memory0.buffer, ptr10, len10 * 1)).set(src10);
          dataView(memory0).setInt32(ptr0 + 68, len10, true);
          dataView(memory0).setInt32(ptr0 + 64, ptr10, true);
          var vec12 = v5_5;
          var len12 = vec12.length;
          var result12 = realloc0(0, 0, 4, len12 * 8);
          for (let i = 0; i < vec12.length; i++) {
            const e = vec12[i];
            const base = result12 + i * 8;var ptr11 = utf8Encode(e, realloc0, memory0);
            var len11 = utf8EncodedLen;
            dataView(memory0).setInt32(base + 4, len11, true);
            dataView(memory0).setInt32(base + 0, ptr11, true);
          }
          dataView(memory0).setInt32(ptr0 + 76, len12, true);
          dataView(memory0).setInt32(ptr0 + 72, result12, true);
          break;
        }
        case 'mcp': {
          const e = variant18.val;
          dataView(memory0).setInt8(ptr0 + 28, 1, true);
          var {argumentsJson: v13_0, metaJson: v13_1, paramsKey: v13_2 } = e;
          var ptr14 = utf8Encode(v13_0, realloc0, memory0);
          var len14 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 36, len14, true);
          dataView(memory0).setInt32(ptr0 + 32, ptr14, true);
          var ptr15 = utf8Encode(v13_1, realloc0, memory0);
          var len15 = utf8EncodedLen;
          dataView(memory0).setInt32(ptr0 + 44, len15, true);
          dataView(memory0).setInt32(ptr0 + 40, ptr15, true);
          var variant17 = v13_2;
          if (variant17 === null || variant17=== undefined) {
            dataView(memory0).setInt8(ptr0 + 48, 0, true);
          } else {
            const e = variant17;
            dataView(memory0).setInt8(ptr0 + 48, 1, true);
            var ptr16 = utf8Encode(e, realloc0, memory0);
            var len16 = utf8EncodedLen;
            dataView(memory0).setInt32(ptr0 + 56, len16, true);
            dataView(memory0).setInt32(ptr0 + 52, ptr16, true);
          }
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant18.tag)}\` (received \`${variant18}\`) specified for \`Request\``);
        }
      }
      const ret = provider010Admit(ptr0);
      let variant47;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let variant45;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant45= {
                tag: 'pass',
              };
              break;
            }
            case 1: {
              var ptr19 = dataView(memory0).getInt32(ret + 16, true);
              var len19 = dataView(memory0).getInt32(ret + 20, true);
              var result19 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr19, len19));
              var ptr20 = dataView(memory0).getInt32(ret + 24, true);
              var len20 = dataView(memory0).getInt32(ret + 28, true);
              var result20 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr20, len20));
              var ptr21 = dataView(memory0).getInt32(ret + 32, true);
              var len21 = dataView(memory0).getInt32(ret + 36, true);
              var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
              var ptr22 = dataView(memory0).getInt32(ret + 40, true);
              var len22 = dataView(memory0).getInt32(ret + 44, true);
              var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
              var ptr23 = dataView(memory0).getInt32(ret + 48, true);
              var len23 = dataView(memory0).getInt32(ret + 52, true);
              var result23 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr23, len23));
              var ptr24 = dataView(memory0).getInt32(ret + 56, true);
              var len24 = dataView(memory0).getInt32(ret + 60, true);
              var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
              var ptr25 = dataView(memory0).getInt32(ret + 64, true);
              var len25 = dataView(memory0).getInt32(ret + 68, true);
              var result25 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr25, len25));
              let enum26;
              switch (dataView(memory0).getUint8(ret + 72, true)) {
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
              switch (dataView(memory0).getUint8(ret + 76, true)) {
                case 0: {
                  variant33 = undefined;
                  break;
                }
                case 1: {
                  let variant29;
                  switch (dataView(memory0).getUint8(ret + 80, true)) {
                    case 0: {
                      variant29 = undefined;
                      break;
                    }
                    case 1: {
                      var len28 = dataView(memory0).getInt32(ret + 88, true);
                      var base28 = dataView(memory0).getInt32(ret + 84, true);
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
                  var len31 = dataView(memory0).getInt32(ret + 96, true);
                  var base31 = dataView(memory0).getInt32(ret + 92, true);
                  var result31 = [];
                  for (let i = 0; i < len31; i++) {
                    const base = base31 + i * 8;
                    var ptr30 = dataView(memory0).getInt32(base + 0, true);
                    var len30 = dataView(memory0).getInt32(base + 4, true);
                    var result30 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr30, len30));
                    result31.push(result30);
                  }
                  let enum32;
                  switch (dataView(memory0).getUint8(ret + 100, true)) {
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
              switch (dataView(memory0).getUint8(ret + 104, true)) {
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
                  var ptr34 = dataView(memory0).getInt32(ret + 108, true);
                  var len34 = dataView(memory0).getInt32(ret + 112, true);
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
              variant45= {
                tag: 'keyed',
                val: {
                  clientKey: result19,
                  key: result20,
                  intent: {
                    scope: result21,
                    runId: result22,
                    stepId: result23,
                    tool: result24,
                    argsJson: result25,
                  },
                  policy: {
                    class: enum26,
                    key: variant33,
                    reconcile: variant35,
                    leaseMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 120, true)),
                    maxCallMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 128, true)),
                    reconcileAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 136, true)),
                    escalateAfterMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 144, true)),
                    retentionMs: BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 152, true)),
                  },
                }
              };
              break;
            }
            case 2: {
              var ptr36 = dataView(memory0).getInt32(ret + 20, true);
              var len36 = dataView(memory0).getInt32(ret + 24, true);
              var result36 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr36, len36));
              var ptr37 = dataView(memory0).getInt32(ret + 28, true);
              var len37 = dataView(memory0).getInt32(ret + 32, true);
              var result37 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr37, len37));
              var ptr38 = dataView(memory0).getInt32(ret + 36, true);
              var len38 = dataView(memory0).getInt32(ret + 40, true);
              var result38 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr38, len38));
              let variant40;
              switch (dataView(memory0).getUint8(ret + 44, true)) {
                case 0: {
                  variant40 = undefined;
                  break;
                }
                case 1: {
                  var ptr39 = dataView(memory0).getInt32(ret + 48, true);
                  var len39 = dataView(memory0).getInt32(ret + 52, true);
                  var result39 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr39, len39));
                  variant40 = result39;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant42;
              switch (dataView(memory0).getUint8(ret + 56, true)) {
                case 0: {
                  variant42 = undefined;
                  break;
                }
                case 1: {
                  var ptr41 = dataView(memory0).getInt32(ret + 60, true);
                  var len41 = dataView(memory0).getInt32(ret + 64, true);
                  var result41 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr41, len41));
                  variant42 = result41;
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              let variant43;
              switch (dataView(memory0).getUint8(ret + 72, true)) {
                case 0: {
                  variant43 = undefined;
                  break;
                }
                case 1: {
                  variant43 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 80, true));
                  break;
                }
                default: {
                  throw new TypeError('invalid variant discriminant for option');
                }
              }
              var ptr44 = dataView(memory0).getInt32(ret + 88, true);
              var len44 = dataView(memory0).getInt32(ret + 92, true);
              var result44 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr44, len44));
              variant45= {
                tag: 'refuse',
                val: {
                  status: clampGuest(dataView(memory0).getUint16(ret + 16, true), 0, 65535),
                  kind: result36,
                  title: result37,
                  detail: result38,
                  pointer: variant40,
                  part: variant42,
                  retryAfterS: variant43,
                  problemJson: result44,
                }
              };
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for Admission');
            }
          }
          variant47= {
            tag: 'ok',
            val: variant45
          };
          break;
        }
        case 1: {
          var ptr46 = dataView(memory0).getInt32(ret + 8, true);
          var len46 = dataView(memory0).getInt32(ret + 12, true);
          var result46 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr46, len46));
          variant47= {
            tag: 'err',
            val: result46
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant47;
      postReturn12(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let provider010Oversized;
    
    function oversized(arg0) {
      const ret = provider010Oversized(toUint64(arg0));
      var ptr0 = dataView(memory0).getInt32(ret + 4, true);
      var len0 = dataView(memory0).getInt32(ret + 8, true);
      var result0 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr0, len0));
      var ptr1 = dataView(memory0).getInt32(ret + 12, true);
      var len1 = dataView(memory0).getInt32(ret + 16, true);
      var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
      var ptr2 = dataView(memory0).getInt32(ret + 20, true);
      var len2 = dataView(memory0).getInt32(ret + 24, true);
      var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
      let variant4;
      switch (dataView(memory0).getUint8(ret + 28, true)) {
        case 0: {
          variant4 = undefined;
          break;
        }
        case 1: {
          var ptr3 = dataView(memory0).getInt32(ret + 32, true);
          var len3 = dataView(memory0).getInt32(ret + 36, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant4 = result3;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant6;
      switch (dataView(memory0).getUint8(ret + 40, true)) {
        case 0: {
          variant6 = undefined;
          break;
        }
        case 1: {
          var ptr5 = dataView(memory0).getInt32(ret + 44, true);
          var len5 = dataView(memory0).getInt32(ret + 48, true);
          var result5 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr5, len5));
          variant6 = result5;
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      let variant7;
      switch (dataView(memory0).getUint8(ret + 56, true)) {
        case 0: {
          variant7 = undefined;
          break;
        }
        case 1: {
          variant7 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 64, true));
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      var ptr8 = dataView(memory0).getInt32(ret + 72, true);
      var len8 = dataView(memory0).getInt32(ret + 76, true);
      var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
      const retVal = {
        status: clampGuest(dataView(memory0).getUint16(ret + 0, true), 0, 65535),
        kind: result0,
        title: result1,
        detail: result2,
        pointer: variant4,
        part: variant6,
        retryAfterS: variant7,
        problemJson: result8,
      };
      postReturn13(ret);
      return retVal;
    }
    let provider010CheckOperation;
    
    function checkOperation(arg0) {
      var {tool: v0_0, policyJson: v0_1, required: v0_2 } = arg0;
      var ptr1 = utf8Encode(v0_0, realloc0, memory0);
      var len1 = utf8EncodedLen;
      var ptr2 = utf8Encode(v0_1, realloc0, memory0);
      var len2 = utf8EncodedLen;
      const ret = provider010CheckOperation(ptr1, len1, ptr2, len2, v0_2 ? 1 : 0);
      let variant14;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          let enum3;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
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
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant10 = undefined;
              break;
            }
            case 1: {
              let variant6;
              switch (dataView(memory0).getUint8(ret + 16, true)) {
                case 0: {
                  variant6 = undefined;
                  break;
                }
                case 1: {
                  var len5 = dataView(memory0).getInt32(ret + 24, true);
                  var base5 = dataView(memory0).getInt32(ret + 20, true);
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
              var len8 = dataView(memory0).getInt32(ret + 32, true);
              var base8 = dataView(memory0).getInt32(ret + 28, true);
              var result8 = [];
              for (let i = 0; i < len8; i++) {
                const base = base8 + i * 8;
                var ptr7 = dataView(memory0).getInt32(base + 0, true);
                var len7 = dataView(memory0).getInt32(base + 4, true);
                var result7 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr7, len7));
                result8.push(result7);
              }
              let enum9;
              switch (dataView(memory0).getUint8(ret + 36, true)) {
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
          switch (dataView(memory0).getUint8(ret + 40, true)) {
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
              var ptr11 = dataView(memory0).getInt32(ret + 44, true);
              var len11 = dataView(memory0).getInt32(ret + 48, true);
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
          variant14= {
            tag: 'ok',
            val: {
              class: enum3,
              key: variant10,
              reconcile: variant12,
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
          var ptr13 = dataView(memory0).getInt32(ret + 8, true);
          var len13 = dataView(memory0).getInt32(ret + 12, true);
          var result13 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr13, len13));
          variant14= {
            tag: 'err',
            val: result13
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant14;
      postReturn14(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let provider010RecordHttp;
    
    function recordHttp(arg0) {
      var {status: v0_0, headers: v0_1, body: v0_2 } = arg0;
      var vec4 = v0_1;
      var len4 = vec4.length;
      var result4 = realloc0(0, 0, 4, len4 * 16);
      for (let i = 0; i < vec4.length; i++) {
        const e = vec4[i];
        const base = result4 + i * 16;var [tuple1_0, tuple1_1] = e;
        var ptr2 = utf8Encode(tuple1_0, realloc0, memory0);
        var len2 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 4, len2, true);
        dataView(memory0).setInt32(base + 0, ptr2, true);
        var ptr3 = utf8Encode(tuple1_1, realloc0, memory0);
        var len3 = utf8EncodedLen;
        dataView(memory0).setInt32(base + 12, len3, true);
        dataView(memory0).setInt32(base + 8, ptr3, true);
      }
      var val5 = v0_2;
      var len5 = val5.byteLength;
      var ptr5 = realloc0(0, 0, 1, len5 * 1);
      var src5 = new Uint8Array(val5.buffer || val5, val5.byteOffset, len5 * 1);
      (new Uint8Array(memory0.buffer, ptr5, len5 * 1)).set(src5);
      const ret = provider010RecordHttp(toUint16(v0_0), result4, len4, ptr5, len5);
      let variant10;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr6 = dataView(memory0).getInt32(ret + 4, true);
          var len6 = dataView(memory0).getInt32(ret + 8, true);
          var result6 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr6, len6));
          variant10= {
            tag: 'returned',
            val: result6
          };
          break;
        }
        case 1: {
          var bool7 = dataView(memory0).getUint8(ret + 4, true);
          var ptr8 = dataView(memory0).getInt32(ret + 8, true);
          var len8 = dataView(memory0).getInt32(ret + 12, true);
          var result8 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr8, len8));
          variant10= {
            tag: 'failed',
            val: {
              definite: bool7 == 0 ? false : (bool7 == 1 ? true : throwInvalidBool()),
              reason: result8,
            }
          };
          break;
        }
        case 2: {
          var ptr9 = dataView(memory0).getInt32(ret + 4, true);
          var len9 = dataView(memory0).getInt32(ret + 8, true);
          var result9 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr9, len9));
          variant10= {
            tag: 'unrecordable',
            val: result9
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Recording');
        }
      }
      const retVal = variant10;
      postReturn15(ret);
      return retVal;
    }
    let provider010RecordMcp;
    
    function recordMcp(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = provider010RecordMcp(ptr0, len0);
      let variant5;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr1 = dataView(memory0).getInt32(ret + 4, true);
          var len1 = dataView(memory0).getInt32(ret + 8, true);
          var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
          variant5= {
            tag: 'returned',
            val: result1
          };
          break;
        }
        case 1: {
          var bool2 = dataView(memory0).getUint8(ret + 4, true);
          var ptr3 = dataView(memory0).getInt32(ret + 8, true);
          var len3 = dataView(memory0).getInt32(ret + 12, true);
          var result3 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr3, len3));
          variant5= {
            tag: 'failed',
            val: {
              definite: bool2 == 0 ? false : (bool2 == 1 ? true : throwInvalidBool()),
              reason: result3,
            }
          };
          break;
        }
        case 2: {
          var ptr4 = dataView(memory0).getInt32(ret + 4, true);
          var len4 = dataView(memory0).getInt32(ret + 8, true);
          var result4 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr4, len4));
          variant5= {
            tag: 'unrecordable',
            val: result4
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Recording');
        }
      }
      const retVal = variant5;
      postReturn15(ret);
      return retVal;
    }
    let provider010ReplayHttp;
    
    function replayHttp(arg0) {
      var ptr0 = utf8Encode(arg0, realloc0, memory0);
      var len0 = utf8EncodedLen;
      const ret = provider010ReplayHttp(ptr0, len0);
      var len3 = dataView(memory0).getInt32(ret + 8, true);
      var base3 = dataView(memory0).getInt32(ret + 4, true);
      var result3 = [];
      for (let i = 0; i < len3; i++) {
        const base = base3 + i * 16;
        var ptr1 = dataView(memory0).getInt32(base + 0, true);
        var len1 = dataView(memory0).getInt32(base + 4, true);
        var result1 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr1, len1));
        var ptr2 = dataView(memory0).getInt32(base + 8, true);
        var len2 = dataView(memory0).getInt32(base + 12, true);
        var result2 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr2, len2));
        result3.push([result1, result2]);
      }
      var ptr4 = dataView(memory0).getInt32(ret + 12, true);
      var len4 = dataView(memory0).getInt32(ret + 16, true);
      var result4 = new Uint8Array(memory0.buffer.slice(ptr4, ptr4 + len4 * 1));
      const retVal = {
        status: clampGuest(dataView(memory0).getUint16(ret + 0, true), 0, 65535),
        headers: result3,
        body: result4,
      };
      postReturn16(ret);
      return retVal;
    }
    let provider010Refuse;
    
    function refuse(arg0, arg1) {
      var variant25 = arg0;
      let variant25_0;
      let variant25_1;
      let variant25_2;
      let variant25_3;
      let variant25_4;
      let variant25_5;
      let variant25_6;
      let variant25_7;
      let variant25_8;
      switch (variant25.tag) {
        case 'conflict': {
          const e = variant25.val;
          var {key: v0_0, pointer: v0_1, storedFingerprint: v0_2, givenFingerprint: v0_3 } = e;
          var ptr1 = utf8Encode(v0_0, realloc0, memory0);
          var len1 = utf8EncodedLen;
          var ptr2 = utf8Encode(v0_1, realloc0, memory0);
          var len2 = utf8EncodedLen;
          var ptr3 = utf8Encode(v0_2, realloc0, memory0);
          var len3 = utf8EncodedLen;
          var ptr4 = utf8Encode(v0_3, realloc0, memory0);
          var len4 = utf8EncodedLen;
          variant25_0 = 0;
          variant25_1 = ptr1;
          variant25_2 = len1;
          variant25_3 = ptr2;
          variant25_4 = len2;
          variant25_5 = ptr3;
          variant25_6 = BigInt(len3);
          variant25_7 = ptr4;
          variant25_8 = len4;
          break;
        }
        case 'in-progress': {
          const e = variant25.val;
          var {key: v5_0, owner: v5_1, state: v5_2, retryAfterMs: v5_3 } = e;
          var ptr6 = utf8Encode(v5_0, realloc0, memory0);
          var len6 = utf8EncodedLen;
          var ptr7 = utf8Encode(v5_1, realloc0, memory0);
          var len7 = utf8EncodedLen;
          var val8 = v5_2;
          let enum8;
          switch (val8) {
            case 'pending': {
              enum8 = 0;
              break;
            }
            case 'done': {
              enum8 = 1;
              break;
            }
            case 'failed': {
              enum8 = 2;
              break;
            }
            case 'in-doubt': {
              enum8 = 3;
              break;
            }
            case 'escalated': {
              enum8 = 4;
              break;
            }
            default: {
              if ((v5_2) instanceof Error) {
                console.error(v5_2);
              }
              
              throw new TypeError(`"${val8}" is not one of the cases of entry-state`);
            }
          }
          variant25_0 = 1;
          variant25_1 = ptr6;
          variant25_2 = len6;
          variant25_3 = ptr7;
          variant25_4 = len7;
          variant25_5 = enum8;
          variant25_6 = toUint64(v5_3);
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'in-doubt': {
          const e = variant25.val;
          var {key: v9_0, reason: v9_1 } = e;
          var ptr10 = utf8Encode(v9_0, realloc0, memory0);
          var len10 = utf8EncodedLen;
          var ptr11 = utf8Encode(v9_1, realloc0, memory0);
          var len11 = utf8EncodedLen;
          variant25_0 = 2;
          variant25_1 = ptr10;
          variant25_2 = len10;
          variant25_3 = ptr11;
          variant25_4 = len11;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'escalated': {
          const e = variant25.val;
          var {key: v12_0, reason: v12_1 } = e;
          var ptr13 = utf8Encode(v12_0, realloc0, memory0);
          var len13 = utf8EncodedLen;
          var ptr14 = utf8Encode(v12_1, realloc0, memory0);
          var len14 = utf8EncodedLen;
          variant25_0 = 3;
          variant25_1 = ptr13;
          variant25_2 = len13;
          variant25_3 = ptr14;
          variant25_4 = len14;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'tool-failed': {
          const e = variant25.val;
          var ptr15 = utf8Encode(e, realloc0, memory0);
          var len15 = utf8EncodedLen;
          variant25_0 = 4;
          variant25_1 = ptr15;
          variant25_2 = len15;
          variant25_3 = 0;
          variant25_4 = 0;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'result-not-recorded': {
          const e = variant25.val;
          var {key: v16_0, reason: v16_1 } = e;
          var ptr17 = utf8Encode(v16_0, realloc0, memory0);
          var len17 = utf8EncodedLen;
          var ptr18 = utf8Encode(v16_1, realloc0, memory0);
          var len18 = utf8EncodedLen;
          variant25_0 = 5;
          variant25_1 = ptr17;
          variant25_2 = len17;
          variant25_3 = ptr18;
          variant25_4 = len18;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'storage': {
          const e = variant25.val;
          var ptr19 = utf8Encode(e, realloc0, memory0);
          var len19 = utf8EncodedLen;
          variant25_0 = 6;
          variant25_1 = ptr19;
          variant25_2 = len19;
          variant25_3 = 0;
          variant25_4 = 0;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'ledger': {
          const e = variant25.val;
          var {kind: v20_0, state: v20_1, message: v20_2 } = e;
          var val21 = v20_0;
          let enum21;
          switch (val21) {
            case 'not-found': {
              enum21 = 0;
              break;
            }
            case 'stale-token': {
              enum21 = 1;
              break;
            }
            case 'invalid-state': {
              enum21 = 2;
              break;
            }
            case 'already-settled': {
              enum21 = 3;
              break;
            }
            case 'retention-not-reached': {
              enum21 = 4;
              break;
            }
            case 'invalid-request': {
              enum21 = 5;
              break;
            }
            case 'changed': {
              enum21 = 6;
              break;
            }
            default: {
              if ((v20_0) instanceof Error) {
                console.error(v20_0);
              }
              
              throw new TypeError(`"${val21}" is not one of the cases of ledger-error-kind`);
            }
          }
          var variant23 = v20_1;
          let variant23_0;
          let variant23_1;
          if (variant23 === null || variant23=== undefined) {
            variant23_0 = 0;
            variant23_1 = 0;
          } else {
            const e = variant23;
            var val22 = e;
            let enum22;
            switch (val22) {
              case 'pending': {
                enum22 = 0;
                break;
              }
              case 'done': {
                enum22 = 1;
                break;
              }
              case 'failed': {
                enum22 = 2;
                break;
              }
              case 'in-doubt': {
                enum22 = 3;
                break;
              }
              case 'escalated': {
                enum22 = 4;
                break;
              }
              default: {
                if ((e) instanceof Error) {
                  console.error(e);
                }
                
                throw new TypeError(`"${val22}" is not one of the cases of entry-state`);
              }
            }
            variant23_0 = 1;
            variant23_1 = enum22;
          }
          var ptr24 = utf8Encode(v20_2, realloc0, memory0);
          var len24 = utf8EncodedLen;
          variant25_0 = 7;
          variant25_1 = enum21;
          variant25_2 = variant23_0;
          variant25_3 = variant23_1;
          variant25_4 = ptr24;
          variant25_5 = len24;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        case 'contention': {
          const e = variant25.val;
          variant25_0 = 8;
          variant25_1 = toUint32(e);
          variant25_2 = 0;
          variant25_3 = 0;
          variant25_4 = 0;
          variant25_5 = 0;
          variant25_6 = 0n;
          variant25_7 = 0;
          variant25_8 = 0;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant25.tag)}\` (received \`${variant25}\`) specified for \`EffectError\``);
        }
      }
      const ret = provider010Refuse(variant25_0, variant25_1, variant25_2, variant25_3, variant25_4, variant25_5, variant25_6, variant25_7, variant25_8, arg1 ? 1 : 0);
      let variant35;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant35= {
            tag: 'handler',
          };
          break;
        }
        case 1: {
          var ptr26 = dataView(memory0).getInt32(ret + 12, true);
          var len26 = dataView(memory0).getInt32(ret + 16, true);
          var result26 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr26, len26));
          var ptr27 = dataView(memory0).getInt32(ret + 20, true);
          var len27 = dataView(memory0).getInt32(ret + 24, true);
          var result27 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr27, len27));
          var ptr28 = dataView(memory0).getInt32(ret + 28, true);
          var len28 = dataView(memory0).getInt32(ret + 32, true);
          var result28 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr28, len28));
          let variant30;
          switch (dataView(memory0).getUint8(ret + 36, true)) {
            case 0: {
              variant30 = undefined;
              break;
            }
            case 1: {
              var ptr29 = dataView(memory0).getInt32(ret + 40, true);
              var len29 = dataView(memory0).getInt32(ret + 44, true);
              var result29 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr29, len29));
              variant30 = result29;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant32;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant32 = undefined;
              break;
            }
            case 1: {
              var ptr31 = dataView(memory0).getInt32(ret + 52, true);
              var len31 = dataView(memory0).getInt32(ret + 56, true);
              var result31 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr31, len31));
              variant32 = result31;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant33;
          switch (dataView(memory0).getUint8(ret + 64, true)) {
            case 0: {
              variant33 = undefined;
              break;
            }
            case 1: {
              variant33 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 72, true));
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr34 = dataView(memory0).getInt32(ret + 80, true);
          var len34 = dataView(memory0).getInt32(ret + 84, true);
          var result34 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr34, len34));
          variant35= {
            tag: 'refuse',
            val: {
              status: clampGuest(dataView(memory0).getUint16(ret + 8, true), 0, 65535),
              kind: result26,
              title: result27,
              detail: result28,
              pointer: variant30,
              part: variant32,
              retryAfterS: variant33,
              problemJson: result34,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for Answer');
        }
      }
      const retVal = variant35;
      postReturn17(ret);
      return retVal;
    }
    let agent010Identify;
    
    function identify(arg0) {
      var ptr0 = realloc0(0, 0, 4, 116);
      var {tool: v1_0, keyIdentity: v1_1, scope: v1_2, run: v1_3, step: v1_4, conversation: v1_5, metaJson: v1_6, paramsKey: v1_7, session: v1_8, defaultScope: v1_9, defaultRun: v1_10 } = arg0;
      var ptr2 = utf8Encode(v1_0, realloc0, memory0);
      var len2 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 4, len2, true);
      dataView(memory0).setInt32(ptr0 + 0, ptr2, true);
      var val3 = v1_1;
      let enum3;
      switch (val3) {
        case 'step': {
          enum3 = 0;
          break;
        }
        case 'run': {
          enum3 = 1;
          break;
        }
        case 'scope': {
          enum3 = 2;
          break;
        }
        default: {
          if ((v1_1) instanceof Error) {
            console.error(v1_1);
          }
          
          throw new TypeError(`"${val3}" is not one of the cases of key-identity`);
        }
      }
      dataView(memory0).setInt8(ptr0 + 8, enum3, true);
      var variant5 = v1_2;
      if (variant5 === null || variant5=== undefined) {
        dataView(memory0).setInt8(ptr0 + 12, 0, true);
      } else {
        const e = variant5;
        dataView(memory0).setInt8(ptr0 + 12, 1, true);
        var ptr4 = utf8Encode(e, realloc0, memory0);
        var len4 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 20, len4, true);
        dataView(memory0).setInt32(ptr0 + 16, ptr4, true);
      }
      var variant7 = v1_3;
      if (variant7 === null || variant7=== undefined) {
        dataView(memory0).setInt8(ptr0 + 24, 0, true);
      } else {
        const e = variant7;
        dataView(memory0).setInt8(ptr0 + 24, 1, true);
        var ptr6 = utf8Encode(e, realloc0, memory0);
        var len6 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 32, len6, true);
        dataView(memory0).setInt32(ptr0 + 28, ptr6, true);
      }
      var variant9 = v1_4;
      if (variant9 === null || variant9=== undefined) {
        dataView(memory0).setInt8(ptr0 + 36, 0, true);
      } else {
        const e = variant9;
        dataView(memory0).setInt8(ptr0 + 36, 1, true);
        var ptr8 = utf8Encode(e, realloc0, memory0);
        var len8 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 44, len8, true);
        dataView(memory0).setInt32(ptr0 + 40, ptr8, true);
      }
      var variant11 = v1_5;
      if (variant11 === null || variant11=== undefined) {
        dataView(memory0).setInt8(ptr0 + 48, 0, true);
      } else {
        const e = variant11;
        dataView(memory0).setInt8(ptr0 + 48, 1, true);
        var ptr10 = utf8Encode(e, realloc0, memory0);
        var len10 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 56, len10, true);
        dataView(memory0).setInt32(ptr0 + 52, ptr10, true);
      }
      var ptr12 = utf8Encode(v1_6, realloc0, memory0);
      var len12 = utf8EncodedLen;
      dataView(memory0).setInt32(ptr0 + 64, len12, true);
      dataView(memory0).setInt32(ptr0 + 60, ptr12, true);
      var variant14 = v1_7;
      if (variant14 === null || variant14=== undefined) {
        dataView(memory0).setInt8(ptr0 + 68, 0, true);
      } else {
        const e = variant14;
        dataView(memory0).setInt8(ptr0 + 68, 1, true);
        var ptr13 = utf8Encode(e, realloc0, memory0);
        var len13 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 76, len13, true);
        dataView(memory0).setInt32(ptr0 + 72, ptr13, true);
      }
      var variant16 = v1_8;
      if (variant16 === null || variant16=== undefined) {
        dataView(memory0).setInt8(ptr0 + 80, 0, true);
      } else {
        const e = variant16;
        dataView(memory0).setInt8(ptr0 + 80, 1, true);
        var ptr15 = utf8Encode(e, realloc0, memory0);
        var len15 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 88, len15, true);
        dataView(memory0).setInt32(ptr0 + 84, ptr15, true);
      }
      var variant18 = v1_9;
      if (variant18 === null || variant18=== undefined) {
        dataView(memory0).setInt8(ptr0 + 92, 0, true);
      } else {
        const e = variant18;
        dataView(memory0).setInt8(ptr0 + 92, 1, true);
        var ptr17 = utf8Encode(e, realloc0, memory0);
        var len17 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 100, len17, true);
        dataView(memory0).setInt32(ptr0 + 96, ptr17, true);
      }
      var variant20 = v1_10;
      if (variant20 === null || variant20=== undefined) {
        dataView(memory0).setInt8(ptr0 + 104, 0, true);
      } else {
        const e = variant20;
        dataView(memory0).setInt8(ptr0 + 104, 1, true);
        var ptr19 = utf8Encode(e, realloc0, memory0);
        var len19 = utf8EncodedLen;
        dataView(memory0).setInt32(ptr0 + 112, len19, true);
        dataView(memory0).setInt32(ptr0 + 108, ptr19, true);
      }
      const ret = agent010Identify(ptr0);
      let variant36;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          var ptr21 = dataView(memory0).getInt32(ret + 4, true);
          var len21 = dataView(memory0).getInt32(ret + 8, true);
          var result21 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr21, len21));
          let variant23;
          switch (dataView(memory0).getUint8(ret + 12, true)) {
            case 0: {
              variant23 = undefined;
              break;
            }
            case 1: {
              var ptr22 = dataView(memory0).getInt32(ret + 16, true);
              var len22 = dataView(memory0).getInt32(ret + 20, true);
              var result22 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr22, len22));
              variant23 = result22;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant25;
          switch (dataView(memory0).getUint8(ret + 24, true)) {
            case 0: {
              variant25 = undefined;
              break;
            }
            case 1: {
              var ptr24 = dataView(memory0).getInt32(ret + 28, true);
              var len24 = dataView(memory0).getInt32(ret + 32, true);
              var result24 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr24, len24));
              variant25 = result24;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let enum26;
          switch (dataView(memory0).getUint8(ret + 36, true)) {
            case 0: {
              enum26 = 'step';
              break;
            }
            case 1: {
              enum26 = 'run';
              break;
            }
            case 2: {
              enum26 = 'scope';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for KeyIdentity');
            }
          }
          let enum27;
          switch (dataView(memory0).getUint8(ret + 37, true)) {
            case 0: {
              enum27 = 'given';
              break;
            }
            case 1: {
              enum27 = 'conversation';
              break;
            }
            case 2: {
              enum27 = 'meta';
              break;
            }
            case 3: {
              enum27 = 'idempotency-key';
              break;
            }
            case 4: {
              enum27 = 'host-default';
              break;
            }
            case 5: {
              enum27 = 'session';
              break;
            }
            case 6: {
              enum27 = 'fallback';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for Origin');
            }
          }
          let variant29;
          switch (dataView(memory0).getUint8(ret + 38, true)) {
            case 0: {
              variant29 = undefined;
              break;
            }
            case 1: {
              let enum28;
              switch (dataView(memory0).getUint8(ret + 39, true)) {
                case 0: {
                  enum28 = 'given';
                  break;
                }
                case 1: {
                  enum28 = 'conversation';
                  break;
                }
                case 2: {
                  enum28 = 'meta';
                  break;
                }
                case 3: {
                  enum28 = 'idempotency-key';
                  break;
                }
                case 4: {
                  enum28 = 'host-default';
                  break;
                }
                case 5: {
                  enum28 = 'session';
                  break;
                }
                case 6: {
                  enum28 = 'fallback';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for Origin');
                }
              }
              variant29 = enum28;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant31;
          switch (dataView(memory0).getUint8(ret + 40, true)) {
            case 0: {
              variant31 = undefined;
              break;
            }
            case 1: {
              let enum30;
              switch (dataView(memory0).getUint8(ret + 41, true)) {
                case 0: {
                  enum30 = 'given';
                  break;
                }
                case 1: {
                  enum30 = 'conversation';
                  break;
                }
                case 2: {
                  enum30 = 'meta';
                  break;
                }
                case 3: {
                  enum30 = 'idempotency-key';
                  break;
                }
                case 4: {
                  enum30 = 'host-default';
                  break;
                }
                case 5: {
                  enum30 = 'session';
                  break;
                }
                case 6: {
                  enum30 = 'fallback';
                  break;
                }
                default: {
                  throw new TypeError('invalid discriminant specified for Origin');
                }
              }
              variant31 = enum30;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          variant36= {
            tag: 'ok',
            val: {
              scope: result21,
              run: variant23,
              step: variant25,
              keyIdentity: enum26,
              scopeFrom: enum27,
              runFrom: variant29,
              stepFrom: variant31,
            }
          };
          break;
        }
        case 1: {
          let enum32;
          switch (dataView(memory0).getUint8(ret + 4, true)) {
            case 0: {
              enum32 = 'no-run';
              break;
            }
            case 1: {
              enum32 = 'invalid-meta';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for IdentityErrorKind');
            }
          }
          let variant34;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              variant34 = undefined;
              break;
            }
            case 1: {
              var ptr33 = dataView(memory0).getInt32(ret + 12, true);
              var len33 = dataView(memory0).getInt32(ret + 16, true);
              var result33 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr33, len33));
              variant34 = result33;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var ptr35 = dataView(memory0).getInt32(ret + 20, true);
          var len35 = dataView(memory0).getInt32(ret + 24, true);
          var result35 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr35, len35));
          variant36= {
            tag: 'err',
            val: {
              kind: enum32,
              at: variant34,
              message: result35,
            }
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for expected');
        }
      }
      const retVal = variant36;
      postReturn18(ret);
      if (typeof retVal === 'object' && retVal.tag === 'err') {
        throw new ComponentError(retVal.val);
      }
      return retVal.val;
    }
    let agent010Answer;
    
    function answer(arg0) {
      var variant38 = arg0;
      let variant38_0;
      let variant38_1;
      let variant38_2;
      let variant38_3;
      let variant38_4;
      let variant38_5;
      let variant38_6;
      let variant38_7;
      let variant38_8;
      let variant38_9;
      let variant38_10;
      let variant38_11;
      let variant38_12;
      let variant38_13;
      switch (variant38.tag) {
        case 'effect': {
          const e = variant38.val;
          var variant25 = e;
          let variant25_0;
          let variant25_1;
          let variant25_2;
          let variant25_3;
          let variant25_4;
          let variant25_5;
          let variant25_6;
          let variant25_7;
          let variant25_8;
          switch (variant25.tag) {
            case 'conflict': {
              const e = variant25.val;
              var {key: v0_0, pointer: v0_1, storedFingerprint: v0_2, givenFingerprint: v0_3 } = e;
              var ptr1 = utf8Encode(v0_0, realloc0, memory0);
              var len1 = utf8EncodedLen;
              var ptr2 = utf8Encode(v0_1, realloc0, memory0);
              var len2 = utf8EncodedLen;
              var ptr3 = utf8Encode(v0_2, realloc0, memory0);
              var len3 = utf8EncodedLen;
              var ptr4 = utf8Encode(v0_3, realloc0, memory0);
              var len4 = utf8EncodedLen;
              variant25_0 = 0;
              variant25_1 = ptr1;
              variant25_2 = len1;
              variant25_3 = ptr2;
              variant25_4 = len2;
              variant25_5 = ptr3;
              variant25_6 = BigInt(len3);
              variant25_7 = ptr4;
              variant25_8 = len4;
              break;
            }
            case 'in-progress': {
              const e = variant25.val;
              var {key: v5_0, owner: v5_1, state: v5_2, retryAfterMs: v5_3 } = e;
              var ptr6 = utf8Encode(v5_0, realloc0, memory0);
              var len6 = utf8EncodedLen;
              var ptr7 = utf8Encode(v5_1, realloc0, memory0);
              var len7 = utf8EncodedLen;
              var val8 = v5_2;
              let enum8;
              switch (val8) {
                case 'pending': {
                  enum8 = 0;
                  break;
                }
                case 'done': {
                  enum8 = 1;
                  break;
                }
                case 'failed': {
                  enum8 = 2;
                  break;
                }
                case 'in-doubt': {
                  enum8 = 3;
                  break;
                }
                case 'escalated': {
                  enum8 = 4;
                  break;
                }
                default: {
                  if ((v5_2) instanceof Error) {
                    console.error(v5_2);
                  }
                  
                  throw new TypeError(`"${val8}" is not one of the cases of entry-state`);
                }
              }
              variant25_0 = 1;
              variant25_1 = ptr6;
              variant25_2 = len6;
              variant25_3 = ptr7;
              variant25_4 = len7;
              variant25_5 = enum8;
              variant25_6 = toUint64(v5_3);
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'in-doubt': {
              const e = variant25.val;
              var {key: v9_0, reason: v9_1 } = e;
              var ptr10 = utf8Encode(v9_0, realloc0, memory0);
              var len10 = utf8EncodedLen;
              var ptr11 = utf8Encode(v9_1, realloc0, memory0);
              var len11 = utf8EncodedLen;
              variant25_0 = 2;
              variant25_1 = ptr10;
              variant25_2 = len10;
              variant25_3 = ptr11;
              variant25_4 = len11;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'escalated': {
              const e = variant25.val;
              var {key: v12_0, reason: v12_1 } = e;
              var ptr13 = utf8Encode(v12_0, realloc0, memory0);
              var len13 = utf8EncodedLen;
              var ptr14 = utf8Encode(v12_1, realloc0, memory0);
              var len14 = utf8EncodedLen;
              variant25_0 = 3;
              variant25_1 = ptr13;
              variant25_2 = len13;
              variant25_3 = ptr14;
              variant25_4 = len14;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'tool-failed': {
              const e = variant25.val;
              var ptr15 = utf8Encode(e, realloc0, memory0);
              var len15 = utf8EncodedLen;
              variant25_0 = 4;
              variant25_1 = ptr15;
              variant25_2 = len15;
              variant25_3 = 0;
              variant25_4 = 0;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'result-not-recorded': {
              const e = variant25.val;
              var {key: v16_0, reason: v16_1 } = e;
              var ptr17 = utf8Encode(v16_0, realloc0, memory0);
              var len17 = utf8EncodedLen;
              var ptr18 = utf8Encode(v16_1, realloc0, memory0);
              var len18 = utf8EncodedLen;
              variant25_0 = 5;
              variant25_1 = ptr17;
              variant25_2 = len17;
              variant25_3 = ptr18;
              variant25_4 = len18;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'storage': {
              const e = variant25.val;
              var ptr19 = utf8Encode(e, realloc0, memory0);
              var len19 = utf8EncodedLen;
              variant25_0 = 6;
              variant25_1 = ptr19;
              variant25_2 = len19;
              variant25_3 = 0;
              variant25_4 = 0;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'ledger': {
              const e = variant25.val;
              var {kind: v20_0, state: v20_1, message: v20_2 } = e;
              var val21 = v20_0;
              let enum21;
              switch (val21) {
                case 'not-found': {
                  enum21 = 0;
                  break;
                }
                case 'stale-token': {
                  enum21 = 1;
                  break;
                }
                case 'invalid-state': {
                  enum21 = 2;
                  break;
                }
                case 'already-settled': {
                  enum21 = 3;
                  break;
                }
                case 'retention-not-reached': {
                  enum21 = 4;
                  break;
                }
                case 'invalid-request': {
                  enum21 = 5;
                  break;
                }
                case 'changed': {
                  enum21 = 6;
                  break;
                }
                default: {
                  if ((v20_0) instanceof Error) {
                    console.error(v20_0);
                  }
                  
                  throw new TypeError(`"${val21}" is not one of the cases of ledger-error-kind`);
                }
              }
              var variant23 = v20_1;
              let variant23_0;
              let variant23_1;
              if (variant23 === null || variant23=== undefined) {
                variant23_0 = 0;
                variant23_1 = 0;
              } else {
                const e = variant23;
                var val22 = e;
                let enum22;
                switch (val22) {
                  case 'pending': {
                    enum22 = 0;
                    break;
                  }
                  case 'done': {
                    enum22 = 1;
                    break;
                  }
                  case 'failed': {
                    enum22 = 2;
                    break;
                  }
                  case 'in-doubt': {
                    enum22 = 3;
                    break;
                  }
                  case 'escalated': {
                    enum22 = 4;
                    break;
                  }
                  default: {
                    if ((e) instanceof Error) {
                      console.error(e);
                    }
                    
                    throw new TypeError(`"${val22}" is not one of the cases of entry-state`);
                  }
                }
                variant23_0 = 1;
                variant23_1 = enum22;
              }
              var ptr24 = utf8Encode(v20_2, realloc0, memory0);
              var len24 = utf8EncodedLen;
              variant25_0 = 7;
              variant25_1 = enum21;
              variant25_2 = variant23_0;
              variant25_3 = variant23_1;
              variant25_4 = ptr24;
              variant25_5 = len24;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            case 'contention': {
              const e = variant25.val;
              variant25_0 = 8;
              variant25_1 = toUint32(e);
              variant25_2 = 0;
              variant25_3 = 0;
              variant25_4 = 0;
              variant25_5 = 0;
              variant25_6 = 0n;
              variant25_7 = 0;
              variant25_8 = 0;
              break;
            }
            default: {
              throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant25.tag)}\` (received \`${variant25}\`) specified for \`EffectError\``);
            }
          }
          variant38_0 = 0;
          variant38_1 = variant25_0;
          variant38_2 = BigInt(variant25_1);
          variant38_3 = variant25_2;
          variant38_4 = variant25_3;
          variant38_5 = variant25_4;
          variant38_6 = variant25_5;
          variant38_7 = variant25_6;
          variant38_8 = variant25_7;
          variant38_9 = variant25_8;
          variant38_10 = 0;
          variant38_11 = 0;
          variant38_12 = 0;
          variant38_13 = 0;
          break;
        }
        case 'key': {
          const e = variant38.val;
          var {kind: v26_0, at: v26_1, canon: v26_2, message: v26_3 } = e;
          var val27 = v26_0;
          let enum27;
          switch (val27) {
            case 'invalid-args': {
              enum27 = 0;
              break;
            }
            case 'invalid-pointer': {
              enum27 = 1;
              break;
            }
            case 'missing-member': {
              enum27 = 2;
              break;
            }
            case 'pointer-into-array': {
              enum27 = 3;
              break;
            }
            case 'empty-field': {
              enum27 = 4;
              break;
            }
            default: {
              if ((v26_0) instanceof Error) {
                console.error(v26_0);
              }
              
              throw new TypeError(`"${val27}" is not one of the cases of key-error-kind`);
            }
          }
          var variant29 = v26_1;
          let variant29_0;
          let variant29_1;
          let variant29_2;
          if (variant29 === null || variant29=== undefined) {
            variant29_0 = 0;
            variant29_1 = 0;
            variant29_2 = 0;
          } else {
            const e = variant29;
            var ptr28 = utf8Encode(e, realloc0, memory0);
            var len28 = utf8EncodedLen;
            variant29_0 = 1;
            variant29_1 = ptr28;
            variant29_2 = len28;
          }
          var variant33 = v26_2;
          let variant33_0;
          let variant33_1;
          let variant33_2;
          let variant33_3;
          let variant33_4;
          let variant33_5;
          let variant33_6;
          if (variant33 === null || variant33=== undefined) {
            variant33_0 = 0;
            variant33_1 = 0;
            variant33_2 = 0n;
            variant33_3 = 0;
            variant33_4 = 0;
            variant33_5 = 0;
            variant33_6 = 0;
          } else {
            const e = variant33;
            var {kind: v30_0, offset: v30_1, line: v30_2, column: v30_3, message: v30_4 } = e;
            var val31 = v30_0;
            let enum31;
            switch (val31) {
              case 'syntax': {
                enum31 = 0;
                break;
              }
              case 'invalid-utf8': {
                enum31 = 1;
                break;
              }
              case 'lone-surrogate': {
                enum31 = 2;
                break;
              }
              case 'duplicate-key': {
                enum31 = 3;
                break;
              }
              case 'number-overflow': {
                enum31 = 4;
                break;
              }
              case 'inexact-integer': {
                enum31 = 5;
                break;
              }
              case 'too-deep': {
                enum31 = 6;
                break;
              }
              case 'too-large': {
                enum31 = 7;
                break;
              }
              default: {
                if ((v30_0) instanceof Error) {
                  console.error(v30_0);
                }
                
                throw new TypeError(`"${val31}" is not one of the cases of canon-error-kind`);
              }
            }
            var ptr32 = utf8Encode(v30_4, realloc0, memory0);
            var len32 = utf8EncodedLen;
            variant33_0 = 1;
            variant33_1 = enum31;
            variant33_2 = toUint64(v30_1);
            variant33_3 = toUint32(v30_2);
            variant33_4 = toUint32(v30_3);
            variant33_5 = ptr32;
            variant33_6 = len32;
          }
          var ptr34 = utf8Encode(v26_3, realloc0, memory0);
          var len34 = utf8EncodedLen;
          variant38_0 = 1;
          variant38_1 = enum27;
          variant38_2 = BigInt(BigInt(variant29_0));
          variant38_3 = variant29_1;
          variant38_4 = variant29_2;
          variant38_5 = variant33_0;
          variant38_6 = variant33_1;
          variant38_7 = variant33_2;
          variant38_8 = variant33_3;
          variant38_9 = variant33_4;
          variant38_10 = variant33_5;
          variant38_11 = variant33_6;
          variant38_12 = ptr34;
          variant38_13 = len34;
          break;
        }
        case 'canon': {
          const e = variant38.val;
          var {kind: v35_0, offset: v35_1, line: v35_2, column: v35_3, message: v35_4 } = e;
          var val36 = v35_0;
          let enum36;
          switch (val36) {
            case 'syntax': {
              enum36 = 0;
              break;
            }
            case 'invalid-utf8': {
              enum36 = 1;
              break;
            }
            case 'lone-surrogate': {
              enum36 = 2;
              break;
            }
            case 'duplicate-key': {
              enum36 = 3;
              break;
            }
            case 'number-overflow': {
              enum36 = 4;
              break;
            }
            case 'inexact-integer': {
              enum36 = 5;
              break;
            }
            case 'too-deep': {
              enum36 = 6;
              break;
            }
            case 'too-large': {
              enum36 = 7;
              break;
            }
            default: {
              if ((v35_0) instanceof Error) {
                console.error(v35_0);
              }
              
              throw new TypeError(`"${val36}" is not one of the cases of canon-error-kind`);
            }
          }
          var ptr37 = utf8Encode(v35_4, realloc0, memory0);
          var len37 = utf8EncodedLen;
          variant38_0 = 2;
          variant38_1 = enum36;
          variant38_2 = BigInt(toUint64(v35_1));
          variant38_3 = toUint32(v35_2);
          variant38_4 = toUint32(v35_3);
          variant38_5 = ptr37;
          variant38_6 = len37;
          variant38_7 = 0n;
          variant38_8 = 0;
          variant38_9 = 0;
          variant38_10 = 0;
          variant38_11 = 0;
          variant38_12 = 0;
          variant38_13 = 0;
          break;
        }
        default: {
          throw new TypeError(`invalid variant tag value \`${JSON.stringify(variant38.tag)}\` (received \`${variant38}\`) specified for \`Failure\``);
        }
      }
      const ret = agent010Answer(variant38_0, variant38_1, variant38_2, variant38_3, variant38_4, variant38_5, variant38_6, variant38_7, variant38_8, variant38_9, variant38_10, variant38_11, variant38_12, variant38_13);
      let variant47;
      switch (dataView(memory0).getUint8(ret + 0, true)) {
        case 0: {
          variant47 = undefined;
          break;
        }
        case 1: {
          let enum39;
          switch (dataView(memory0).getUint8(ret + 8, true)) {
            case 0: {
              enum39 = 'conflict';
              break;
            }
            case 1: {
              enum39 = 'in-progress';
              break;
            }
            case 2: {
              enum39 = 'in-doubt';
              break;
            }
            case 3: {
              enum39 = 'escalated';
              break;
            }
            case 4: {
              enum39 = 'result-not-recorded';
              break;
            }
            case 5: {
              enum39 = 'tool-failed';
              break;
            }
            case 6: {
              enum39 = 'contention';
              break;
            }
            case 7: {
              enum39 = 'invalid-arguments';
              break;
            }
            default: {
              throw new TypeError('invalid discriminant specified for ReplyCode');
            }
          }
          var ptr40 = dataView(memory0).getInt32(ret + 12, true);
          var len40 = dataView(memory0).getInt32(ret + 16, true);
          var result40 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr40, len40));
          let variant42;
          switch (dataView(memory0).getUint8(ret + 20, true)) {
            case 0: {
              variant42 = undefined;
              break;
            }
            case 1: {
              var ptr41 = dataView(memory0).getInt32(ret + 24, true);
              var len41 = dataView(memory0).getInt32(ret + 28, true);
              var result41 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr41, len41));
              variant42 = result41;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant44;
          switch (dataView(memory0).getUint8(ret + 32, true)) {
            case 0: {
              variant44 = undefined;
              break;
            }
            case 1: {
              var ptr43 = dataView(memory0).getInt32(ret + 36, true);
              var len43 = dataView(memory0).getInt32(ret + 40, true);
              var result43 = utf8Decoder.decode(new Uint8Array(memory0.buffer, ptr43, len43));
              variant44 = result43;
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          let variant45;
          switch (dataView(memory0).getUint8(ret + 48, true)) {
            case 0: {
              variant45 = undefined;
              break;
            }
            case 1: {
              variant45 = BigInt.asUintN(64, dataView(memory0).getBigInt64(ret + 56, true));
              break;
            }
            default: {
              throw new TypeError('invalid variant discriminant for option');
            }
          }
          var bool46 = dataView(memory0).getUint8(ret + 64, true);
          variant47 = {
            code: enum39,
            text: result40,
            key: variant42,
            pointer: variant44,
            retryAfterMs: variant45,
            repeatable: bool46 == 0 ? false : (bool46 == 1 ? true : throwInvalidBool()),
          };
          break;
        }
        default: {
          throw new TypeError('invalid variant discriminant for option');
        }
      }
      const retVal = variant47;
      postReturn19(ret);
      return retVal;
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
    provider010Admit = exports0['oncely:core/provider@0.1.0#admit'];
    provider010Oversized = exports0['oncely:core/provider@0.1.0#oversized'];
    provider010CheckOperation = exports0['oncely:core/provider@0.1.0#check-operation'];
    provider010RecordHttp = exports0['oncely:core/provider@0.1.0#record-http'];
    provider010RecordMcp = exports0['oncely:core/provider@0.1.0#record-mcp'];
    provider010ReplayHttp = exports0['oncely:core/provider@0.1.0#replay-http'];
    provider010Refuse = exports0['oncely:core/provider@0.1.0#refuse'];
    agent010Identify = exports0['oncely:core/agent@0.1.0#identify'];
    agent010Answer = exports0['oncely:core/agent@0.1.0#answer'];
    const agent010 = {
      answer: answer,
      identify: identify,
      
    };
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
    const provider010 = {
      admit: admit,
      checkOperation: checkOperation,
      oversized: oversized,
      recordHttp: recordHttp,
      recordMcp: recordMcp,
      refuse: refuse,
      replayHttp: replayHttp,
      
    };
    
    return { agent: agent010, canonical: canonical010, effect: effect010, keys: keys010, ledger: ledger010, policy: policy010, provider: provider010, 'oncely:core/agent@0.1.0': agent010, 'oncely:core/canonical@0.1.0': canonical010, 'oncely:core/effect@0.1.0': effect010, 'oncely:core/keys@0.1.0': keys010, 'oncely:core/ledger@0.1.0': ledger010, 'oncely:core/policy@0.1.0': policy010, 'oncely:core/provider@0.1.0': provider010,  };
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
